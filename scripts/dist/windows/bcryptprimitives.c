/* A stand-in for Windows' bcryptprimitives.dll, for tests under Wine only (never shipped).
 * Rust's standard library takes its random bytes from ProcessPrng in bcryptprimitives.dll
 * (Windows 10 and later), which Wine 8 lacks: without this file next to the test program the
 * loader stops it with status c0000135 before main. It fills the buffer from RtlGenRandom
 * (SystemFunction036 of advapi32), as the real function fills it from the system's generator. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
