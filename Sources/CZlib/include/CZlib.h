// zlib for permessage-deflate (RFC 7692): on Linux declared by Courier (ZlibTypes.h,
// ZlibFunctions.h) and linked as libz.so.1, so that building needs no zlib1g-dev; on Apple
// platforms the SDK's header and library.
#ifndef COURIER_CZLIB_H
#define COURIER_CZLIB_H

#if defined(__APPLE__)
#include <zlib.h>
#else
#include "ZlibTypes.h"
#include "ZlibFunctions.h"
#endif

// deflateInit2 and inflateInit2 are macros over these, which Swift cannot call. Raw deflate
// (negative window bits, no zlib header), as RFC 7692 frames it; the version's first digit and
// the stream's size are what zlib checks.
static inline int courier_deflate_init(z_stream *strm, int level, int windowBits) {
    return deflateInit2_(strm, level, Z_DEFLATED, -windowBits, 8, Z_DEFAULT_STRATEGY, "1.2.13", (int)sizeof(z_stream));
}
static inline int courier_inflate_init(z_stream *strm, int windowBits) {
    return inflateInit2_(strm, -windowBits, "1.2.13", (int)sizeof(z_stream));
}

#endif
