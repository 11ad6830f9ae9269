// libsystemc.so's own main() refers to sc_main, so every executable linking SystemC must define it even
// though npusim programs have their own main() and never call it. Compiled into each consumer of
// npusim_sim (an INTERFACE source), so the symbol is there whether or not the static library's objects are.
extern "C" int sc_main(int, char*[]) { return 0; }  // C linkage, as sysc/kernel/sc_externs.h declares it
