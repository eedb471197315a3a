// zlib's stream structure as zlib.h (1.2.x, LP64) declares it, for permessage-deflate
// (WebSocketDeflate). Its layout must match the library's: `.ci/check-c-declarations` compares
// sizes and offsets with the real header's, and deflateInit2_/inflateInit2_ refuse a stream of
// another size.
#ifndef COURIER_ZLIB_TYPES_H
#define COURIER_ZLIB_TYPES_H

typedef unsigned char Bytef;
typedef unsigned int uInt;
typedef unsigned long uLong;
typedef void *voidpf;
typedef voidpf (*alloc_func)(voidpf opaque, uInt items, uInt size);
typedef void (*free_func)(voidpf opaque, voidpf address);

typedef struct z_stream_s {
    Bytef *next_in;
    uInt avail_in;
    uLong total_in;
    Bytef *next_out;
    uInt avail_out;
    uLong total_out;
    char *msg;
    struct internal_state *state;
    alloc_func zalloc;
    free_func zfree;
    voidpf opaque;
    int data_type;
    uLong adler;
    uLong reserved;
} z_stream;

#endif
