// Command winedll writes to its standard output a bcryptprimitives.dll for
// Wine 8 (Debian 12's), which has none: Go programs for Windows since Go
// 1.24 stop at start without its ProcessPrng. The DLL holds nothing but
// that export, forwarded to advapi32's SystemFunction036 (RtlGenRandom),
// which fills a buffer with random bytes as ProcessPrng does; the runtime
// reads only the low byte of the answer, which both set to 1 on success.
// scripts/wine-test puts it in the throw-away Wine prefix's system32 when
// Wine lacks one of its own.
//
//	go run ./internal/harness/winedll > "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
package main
