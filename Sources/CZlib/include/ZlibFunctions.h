// zlib's functions and constants as Courier uses them, declared as zlib.h declares them. Kept
// apart from ZlibTypes.h so that `.ci/check-c-declarations` can include this file after the
// real header: any declaration or macro that differs is then a compiler error.
#ifndef COURIER_ZLIB_FUNCTIONS_H
#define COURIER_ZLIB_FUNCTIONS_H

#define Z_NO_FLUSH      0
#define Z_SYNC_FLUSH    2
#define Z_OK            0
#define Z_STREAM_END    1
#define Z_DATA_ERROR   (-3)
#define Z_BUF_ERROR    (-5)
#define Z_DEFAULT_COMPRESSION  (-1)
#define Z_DEFAULT_STRATEGY    0
#define Z_DEFLATED   8

int deflateInit2_(z_stream *strm, int level, int method, int windowBits, int memLevel, int strategy,
                  const char *version, int stream_size);
int inflateInit2_(z_stream *strm, int windowBits, const char *version, int stream_size);
int deflate(z_stream *strm, int flush);
int inflate(z_stream *strm, int flush);
int deflateEnd(z_stream *strm);
int inflateEnd(z_stream *strm);
int deflateReset(z_stream *strm);
int inflateReset(z_stream *strm);

#endif
