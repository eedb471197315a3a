// libcurl for CurlTransport on Linux, declared by Courier (CurlTypes.h, CurlFunctions.h) and
// linked by its soname, libcurl.so.4 (Package.swift), so that building needs no
// libcurl4-openssl-dev: the library itself is on every Linux with Swift, because
// FoundationNetworking links it. Apple platforms do not use this module.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call: the typed wrappers below pass each kind of argument through. Certificate pinning runs
// inside OpenSSL's verification (CURLOPT_SSL_CTX_FUNCTION), written in C (TLSCheck.c) so that
// the callbacks touch no Swift object.
#ifndef COURIER_CCURL_H
#define COURIER_CCURL_H

#include "CurlTypes.h"
#include "CurlFunctions.h"

static inline CURLcode courier_easy_set_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode courier_easy_set_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode courier_easy_set_pointer(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode courier_easy_set_write_function(CURL *easy, CURLoption option, curl_write_callback function) {
    return curl_easy_setopt(easy, option, function);
}
static inline CURLcode courier_easy_set_read_function(CURL *easy, curl_read_callback function) {
    return curl_easy_setopt(easy, CURLOPT_READFUNCTION, function);
}
static inline CURLcode courier_easy_set_seek_function(CURL *easy, curl_seek_callback function) {
    return curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, function);
}
static inline CURLcode courier_easy_get_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode courier_easy_get_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode courier_easy_get_offset(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode courier_easy_get_socket(CURL *easy, CURLINFO info, curl_socket_t *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLMcode courier_multi_set_socket_function(CURLM *multi, curl_socket_callback function, void *data) {
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, function);
    return code != CURLM_OK ? code : curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, data);
}
static inline CURLMcode courier_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// MARK: - TLS: extra roots and certificate pinning

#define COURIER_MAX_PINS 16
#define COURIER_MAX_CHAIN 16

// What one connection's TLS set-up needs and what its handshake saw. Owned by one pooled easy
// handle for the transport's whole life (never freed while a connection it set up may still
// handshake), written before the transfer and read after it, on the transport's thread.
typedef struct courier_tls_check {
    // Extra trusted roots (a PEM file) added to the system's store, or NULL.
    const char *extra_roots;
    // SHA-256 digests of SubjectPublicKeyInfo; none means the host is not pinned.
    unsigned char pins[COURIER_MAX_PINS][32];
    int pin_count;
    // Results of the last handshake: the chain's keys, and whether a pin matched.
    unsigned char seen[COURIER_MAX_CHAIN][32];
    int seen_count;
    int verified;
    int pin_matched;
} courier_tls_check;

// Installs the check on `easy` (or removes it, with NULL) for its next connections: OpenSSL's
// verification of the peer's chain, then the pins against every certificate of the verified
// chain (leaf, intermediates, root), as OkHttp's CertificatePinner does.
void courier_easy_set_tls_check(CURL *easy, courier_tls_check *check);

#endif
