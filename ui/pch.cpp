// The source of the GUI modules' shared precompiled header (ui/CMakeLists.txt).
