// libcurl and OpenSSL, the system's (Debian: libcurl4-openssl-dev, libssl-dev), for
// CurlTransport on Linux.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call: the typed wrappers below pass each kind of argument through. Certificate pinning runs
// inside OpenSSL's verification (CURLOPT_SSL_CTX_FUNCTION), written here in C so that the
// callbacks touch no Swift object.
#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/sha.h>
#include <string.h>

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

// OpenSSL's verification of the peer's chain, then the pins against every certificate of the
// verified chain (leaf, intermediates, root), as OkHttp's CertificatePinner does.
static inline int courier_verify_chain(X509_STORE_CTX *store, void *argument) {
    courier_tls_check *check = (courier_tls_check *)argument;
    check->seen_count = 0;
    check->verified = 0;
    check->pin_matched = 0;
    int ok = X509_verify_cert(store);
    if (ok <= 0) return ok;
    check->verified = 1;
    if (check->pin_count == 0) return ok;
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(store);
    int count = chain ? sk_X509_num(chain) : 0;
    for (int index = 0; index < count && check->seen_count < COURIER_MAX_CHAIN; index++) {
        X509 *certificate = sk_X509_value(chain, index);
        unsigned char *der = NULL;
        int length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), &der);
        if (length <= 0) continue;
        unsigned char *digest = check->seen[check->seen_count++];
        SHA256(der, (size_t)length, digest);
        OPENSSL_free(der);
        for (int pin = 0; pin < check->pin_count; pin++) {
            if (memcmp(check->pins[pin], digest, 32) == 0) check->pin_matched = 1;
        }
    }
    if (check->pin_matched) return 1;
    X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
    return 0;
}

static inline CURLcode courier_ssl_context(CURL *easy, void *context, void *argument) {
    (void)easy;
    courier_tls_check *check = (courier_tls_check *)argument;
    SSL_CTX *ssl = (SSL_CTX *)context;
    // A renegotiation would run the check again after its handle has moved on.
    SSL_CTX_set_options(ssl, SSL_OP_NO_RENEGOTIATION);
    if (check->extra_roots != NULL) {
        if (SSL_CTX_load_verify_locations(ssl, check->extra_roots, NULL) != 1) return CURLE_SSL_CACERT_BADFILE;
    }
    SSL_CTX_set_cert_verify_callback(ssl, courier_verify_chain, check);
    return CURLE_OK;
}

// Installs the check on `easy` (or removes it, with NULL) for its next connections.
static inline void courier_easy_set_tls_check(CURL *easy, courier_tls_check *check) {
    curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, check ? courier_ssl_context : NULL);
    curl_easy_setopt(easy, CURLOPT_SSL_CTX_DATA, (void *)check);
}
