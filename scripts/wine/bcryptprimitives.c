/*
 * A stand-in bcryptprimitives.dll for the Wine prefix the Windows tests run in
 * (scripts/test-tools.sh wine-prefix). Test environment only, never shipped.
 *
 * Rust's std (1.78 and later) and Go (1.24 and later) get their random bytes from
 * ProcessPrng in bcryptprimitives.dll, and import it at load time (Go loads the DLL
 * from system32 only). Debian's Wine 8.0 has no such DLL, so every program they
 * build stops before main. Later Wine releases ship one; this file is the same
 * function forwarded to advapi32's SystemFunction036 (RtlGenRandom), which
 * Wine 8.0 has. RtlGenRandom takes a ULONG length, hence the loop.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

/* Built with -nostdlib: no C runtime to start, so the entry point does nothing. */
BOOL WINAPI DllMainCRTStartup(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    (void)instance, (void)reason, (void)reserved;
    return TRUE;
}

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x80000000u ? 0x80000000u : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
