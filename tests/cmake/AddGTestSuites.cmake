# Run by libra_discover_gtest_suites (tests/CMakeLists.txt) after a test program
# is linked: lists its GoogleTest tests and writes CTEST_FILE, one ctest test per
# test suite (PREFIX + suite name) that runs the program with
# --gtest_filter=SUITE.*, with the LABELS given.
#
#   cmake -D EXECUTABLE=... -D PREFIX=... -D LABELS=... -D CTEST_FILE=... -P AddGTestSuites.cmake
execute_process(
  COMMAND "${EXECUTABLE}" --gtest_list_tests
  OUTPUT_VARIABLE listing
  ERROR_VARIABLE errors
  RESULT_VARIABLE result
  TIMEOUT 120)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "Listing the tests of ${EXECUTABLE} failed (${result}):\n${listing}\n${errors}")
endif()
# A suite line starts in the first column and ends its name with a dot
# ("Suite." or "Prefix/Suite.  # TypeParam = ..."); test lines are indented.
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(script "")
set(count 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ][^ ]*)\\.( .*)?$")
    set(suite "${CMAKE_MATCH_1}")
    set(name "${PREFIX}${suite}")
    string(APPEND script
      "add_test([==[${name}]==] [==[${EXECUTABLE}]==] [==[--gtest_filter=${suite}.*]==])\n"
      "set_tests_properties([==[${name}]==] PROPERTIES LABELS [==[${LABELS}]==])\n")
    math(EXPR count "${count} + 1")
  endif()
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} lists no test suite:\n${listing}")
endif()
file(WRITE "${CTEST_FILE}" "${script}")
