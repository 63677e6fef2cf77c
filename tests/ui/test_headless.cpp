// libra-studio without a user: --export-chart / --export-svg / --screenshot render
// without any display and exit 0; bad input exits 2 with one line on stderr.
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <clocale>
#include <cmath>
#include <libra/memory_usage.hpp>
#include <libra/project_io.hpp>

class HeadlessTest : public QObject {
  Q_OBJECT

 private:
  struct Run {
    int code = -1;
    QString out, err;
  };

  // Runs the real binary with no display at all: no DISPLAY, WAYLAND_DISPLAY or
  // QT_QPA_PLATFORM, and with `locale` as LC_ALL when given.
  static Run run(const QStringList& arguments, const QString& locale = {}) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!locale.isEmpty()) env.insert(QStringLiteral("LC_ALL"), locale);
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(LIBRA_STUDIO_BINARY), arguments);
    Run r;
    if (!process.waitForFinished(120000)) return r;
    r.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    r.out = QString::fromUtf8(process.readAllStandardOutput());
    r.err = QString::fromUtf8(process.readAllStandardError());
    return r;
  }

  // Every line on stderr: a failing run prints exactly one, naming what is wrong.
  static QStringList errorLines(const QString& err) {
    QStringList lines = err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString& line : lines) {
      if (!line.startsWith(QStringLiteral("libra-studio: ")))
        return {line, QStringLiteral("(unexpected)")};
    }
    return lines;
  }

 private Q_SLOTS:
  void exportsTheBundledExampleWithoutADisplay() {
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("chart.png"));
    const QString svg = dir.filePath(QStringLiteral("chart.svg"));
    const Run r = run({QStringLiteral("--export-chart"), png, QStringLiteral("--export-svg"), svg});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains(QStringLiteral("status: optimal")));
    QVERIFY(r.out.contains(QStringLiteral("bandwidth_gbps: chiplet=")));
    QVERIFY(r.out.contains(QStringLiteral("iteration_time_ns: ")));
    QVERIFY(r.out.contains(QStringLiteral("network_cost_usd: ")));
    QFile pngFile(png);
    QVERIFY(pngFile.open(QIODevice::ReadOnly));
    QCOMPARE(pngFile.read(4), QByteArray("\x89PNG"));
    QVERIFY(!QImage(png).isNull());
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    const QByteArray text = svgFile.readAll();
    QVERIFY(text.contains("<svg"));
    // The labels' font size is the pixels they were laid out at (issue 28 item
    // 2: font-size="9" for 12 px text left gaps inside labels in librsvg).
    QMap<QByteArray, int> sizes;
    static const QRegularExpression fontSize(QStringLiteral("font-size=\"([0-9.]+)\""));
    for (auto it = fontSize.globalMatch(QString::fromUtf8(text)); it.hasNext();) {
      ++sizes[it.next().captured(1).toUtf8()];
    }
    QVERIFY(!sizes.isEmpty());
    QByteArray most;
    for (auto it = sizes.cbegin(); it != sizes.cend(); ++it) {
      if (most.isEmpty() || it.value() > sizes.value(most)) most = it.key();
    }
    // The offscreen platform's 96 dpi: the SVG's size in mm says which
    // resolution it was written at, and a whole point size becomes its pixels.
    static const QRegularExpression header(
        QStringLiteral("width=\"([0-9.]+)mm\"[^>]*viewBox=\"0 0 ([0-9]+) "));
    const QRegularExpressionMatch h = header.match(QString::fromUtf8(text));
    QVERIFY(h.hasMatch());
    const double dpi = h.captured(2).toDouble() / (h.captured(1).toDouble() / 25.4);
    QVERIFY2(std::abs(dpi - 96) < 0.5, qPrintable(QString::number(dpi)));
    const double points = most.toDouble() * 72 / dpi;
    QVERIFY2(std::abs(points - std::round(points)) < 1e-3, most.constData());
  }

  void exportsAGivenProjectAsPdf() {
    QTemporaryDir dir;
    const QString pdf = dir.filePath(QStringLiteral("chart.pdf"));
    const Run r = run({QStringLiteral(LIBRA_SOURCE_DIR "/resources/examples/gpt3-3d.json"),
                       QStringLiteral("--export-chart"), pdf});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains(QStringLiteral("bandwidth_gbps: package=")));
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.startsWith("%PDF"));
    QVERIFY(bytes.trimmed().endsWith("%%EOF"));
  }

  void screenshotsTheMainWindow() {
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("window.png"));
    const Run r = run({QStringLiteral("--screenshot"), png});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1500, 940));
  }

  // The README's latency numbers come from this: one JSON object with the
  // percentiles of every change (no timing is asserted: a loaded machine is slow,
  // not wrong; that every change reaches the screen is).
  void measuresLatencyAsJson() {
    const Run r = run({QStringLiteral("--measure-latency"), QStringLiteral("--changes"),
                       QStringLiteral("12"), QStringLiteral("--json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &parseError);
    QVERIFY2(doc.isObject(), qPrintable(parseError.errorString() + QLatin1Char(' ') + r.out));
    const QJsonObject o = doc.object();
    QCOMPARE(o.value(QStringLiteral("changes")).toInt(), 12);
    QCOMPARE(o.value(QStringLiteral("front_points")).toInt(), 50);
    for (const char* key : {"isolated_median_ms", "isolated_p95_ms", "isolated_max_ms",
                            "isolated_full_front_median_ms", "isolated_full_front_p95_ms",
                            "drag_median_ms", "drag_p95_ms", "drag_max_ms", "drag_fps"}) {
      const double v = o.value(QLatin1String(key)).toDouble(-1);
      QVERIFY2(v > 0 && std::isfinite(v), key);
    }
    QVERIFY(o.value(QStringLiteral("isolated_median_ms")).toDouble() <=
            o.value(QStringLiteral("isolated_p95_ms")).toDouble());
    QVERIFY(o.value(QStringLiteral("isolated_p95_ms")).toDouble() <=
            o.value(QStringLiteral("isolated_max_ms")).toDouble());
    // The project's own front comes with the change's first frame or after it.
    QVERIFY(o.value(QStringLiteral("isolated_full_front_median_ms")).toDouble() >=
            o.value(QStringLiteral("isolated_median_ms")).toDouble());
    QVERIFY(o.value(QStringLiteral("drag_frames")).toInt() >= 1);

    const Run wrong = run({QStringLiteral("--json")});
    QCOMPARE(wrong.code, 2);
    QVERIFY(wrong.err.contains(QStringLiteral("--measure-latency")));
  }

  // The short variant of packaging/endurance.sh: a warm-up that fills the undo
  // history, then three seconds of edits through the widgets. Memory stays within
  // the run's stated bounds, every checkpoint's request is answered, the solver
  // ends idle and the autosave reads back as the document.
  void enduranceRunStaysWithinItsBounds() {
    const Run r =
        run({QStringLiteral("--endurance"), QStringLiteral("3"), QStringLiteral("--json")});
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &parseError);
    QVERIFY2(doc.isObject(),
             qPrintable(parseError.errorString() + QLatin1Char(' ') + r.out + r.err));
    const QJsonObject o = doc.object();
    QVERIFY2(r.code == 0, qPrintable(r.out));
    QVERIFY(o.value(QStringLiteral("ok")).toBool());
    QVERIFY(o.value(QStringLiteral("failures")).toArray().isEmpty());
    QCOMPARE(o.value(QStringLiteral("undo_steps")).toInt(), 500);  // Document::kUndoLimit
    QVERIFY(o.value(QStringLiteral("edit_steps")).toInt() > 0);
    QVERIFY(o.value(QStringLiteral("jobs_started_after_warmup")).toInt() > 0);
    QVERIFY(o.value(QStringLiteral("frames_painted")).toInt() > 0);
    const int checkpoints = o.value(QStringLiteral("checkpoints")).toInt();
    QVERIFY(checkpoints >= 2);  // after the warm-up and at the end
    QCOMPARE(o.value(QStringLiteral("checkpoints_answered")).toInt(), checkpoints);
    QCOMPARE(o.value(QStringLiteral("rss_at_checkpoints_kb")).toArray().size(), checkpoints);
    QVERIFY(!o.value(QStringLiteral("solver_busy_at_end")).toBool(true));
    QVERIFY(o.value(QStringLiteral("rss_after_warmup_kb")).toInteger() > 0);
    // The resident set is held to its bound where it follows the heap (not under
    // the sanitizers: libra::residentSetTracksHeap); the heap in use always is.
    QCOMPARE(o.value(QStringLiteral("rss_bound_checked")).toBool(), libra::residentSetTracksHeap());
    if (libra::residentSetTracksHeap()) {
      QVERIFY(o.value(QStringLiteral("rss_growth_after_warmup_kb")).toInteger() <=
              o.value(QStringLiteral("rss_growth_bound_kb")).toInteger());
    }
    QVERIFY(o.value(QStringLiteral("heap_after_warmup_kb")).toInteger() > 0);
    QVERIFY(o.value(QStringLiteral("heap_growth_after_warmup_kb")).toInteger() <=
            o.value(QStringLiteral("heap_growth_bound_kb")).toInteger());
    QVERIFY(o.value(QStringLiteral("rss_peak_kb")).toInteger() >=
            o.value(QStringLiteral("rss_end_kb")).toInteger());
    QVERIFY(o.value(QStringLiteral("autosaves_written")).toInt() >= 1);
    QVERIFY(o.value(QStringLiteral("recovery_matches_document")).toBool());

    for (const QString& bad : {QStringLiteral("0"), QStringLiteral("-1"), QStringLiteral("x")}) {
      const Run wrong = run({QStringLiteral("--endurance"), bad});
      QCOMPARE(wrong.code, 2);
      QCOMPARE(errorLines(wrong.err).size(), 1);
      QVERIFY(wrong.err.contains(QStringLiteral("--endurance")));
    }
  }

  // Under a locale with a decimal comma (Qt hands the environment's locale to
  // the C library) a constraint with a decimal point is read as written and
  // the answer is printed as in the C locale: the same output byte for byte.
  // Before, "bw[chiplet] <= 120.5" was refused as "not a number".
  void aDecimalCommaLocaleChangesNothing() {
    QVERIFY2(std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr,
             "the de_DE.UTF-8 locale is missing (packaging/deps.sh generates it)");
    std::setlocale(LC_NUMERIC, "C");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("decimal.json"));
    libra::Project project =
        libra::loadProject(LIBRA_SOURCE_DIR "/resources/examples/gpt3-3d.json");
    project.constraints.push_back("bw[0] <= 120.5");
    libra::saveProject(project, path.toStdString());
    const QStringList arguments{path, QStringLiteral("--export-chart"),
                                dir.filePath(QStringLiteral("chart.png"))};
    const Run c = run(arguments);
    const Run german = run(arguments, QStringLiteral("de_DE.UTF-8"));
    QVERIFY2(c.code == 0, qPrintable(c.err));
    QVERIFY2(german.code == 0, qPrintable(german.err));
    QVERIFY2(c.out.contains(QStringLiteral("=120.5")), qPrintable(c.out));
    QCOMPARE(german.out, c.out);
  }

  void badInputExitsTwoWithOneLine() {
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("chart.png"));
    Run r =
        run({dir.filePath(QStringLiteral("missing.json")), QStringLiteral("--export-chart"), png});
    QCOMPARE(r.code, 2);
    QCOMPARE(errorLines(r.err).size(), 1);
    QVERIFY(r.err.contains(QStringLiteral("missing.json")));
    QVERIFY(!QFile::exists(png));

    const QString malformed = dir.filePath(QStringLiteral("malformed.json"));
    QFile f(malformed);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"libra-project\", \"schema_version\": 1, \"network\": 3}");
    f.close();
    r = run({malformed, QStringLiteral("--export-chart"), png});
    QCOMPARE(r.code, 2);
    QCOMPARE(errorLines(r.err).size(), 1);
    QVERIFY(r.err.contains(QStringLiteral("malformed.json")));

    r = run({QStringLiteral("--export-chart"), dir.filePath(QStringLiteral("chart.bmp"))});
    QCOMPARE(r.code, 2);
    QCOMPARE(errorLines(r.err).size(), 1);

    r = run({QStringLiteral("--no-such-flag")});
    QCOMPARE(r.code, 2);
    QCOMPARE(errorLines(r.err).size(), 1);
  }
};

QTEST_GUILESS_MAIN(HeadlessTest)
#include "test_headless.moc"
