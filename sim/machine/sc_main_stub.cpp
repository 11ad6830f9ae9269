// libsystemc.so's own main() refers to sc_main, so every executable linking SystemC must define it even
// though npusim programs have their own main() and never call it. It is its own archive (npusim_sc_main),
// pulled into every executable by the `-u sc_main` link option (sim/CMakeLists.txt).
extern "C" int sc_main(int, char*[]) { return 0; }  // C linkage, as sysc/kernel/sc_externs.h declares it
