// Certificate pinning and extra roots for CurlTransport, inside OpenSSL's verification of the
// peer's chain (CURLOPT_SSL_CTX_FUNCTION): C, so that the callbacks touch no Swift object.
#include "CCurl.h"
#include "OpenSSLFunctions.h"
#include <string.h>

// OpenSSL's verification of the peer's chain, then the pins against every certificate of the
// verified chain (leaf, intermediates, root), as OkHttp's CertificatePinner does.
static int courier_verify_chain(X509_STORE_CTX *store, void *argument) {
    courier_tls_check *check = (courier_tls_check *)argument;
    check->seen_count = 0;
    check->verified = 0;
    check->pin_matched = 0;
    int ok = X509_verify_cert(store);
    if (ok <= 0) return ok;
    check->verified = 1;
    if (check->pin_count == 0) return ok;
    // sk_X509_num and sk_X509_value, which are macros over these.
    const OPENSSL_STACK *chain = (const OPENSSL_STACK *)X509_STORE_CTX_get0_chain(store);
    int count = chain ? OPENSSL_sk_num(chain) : 0;
    for (int index = 0; index < count && check->seen_count < COURIER_MAX_CHAIN; index++) {
        X509 *certificate = (X509 *)OPENSSL_sk_value(chain, index);
        unsigned char *der = NULL;
        int length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), &der);
        if (length <= 0) continue;
        unsigned char *digest = check->seen[check->seen_count++];
        SHA256(der, (size_t)length, digest);
        // OPENSSL_free, a macro over this.
        CRYPTO_free(der, __FILE__, __LINE__);
        for (int pin = 0; pin < check->pin_count; pin++) {
            if (memcmp(check->pins[pin], digest, 32) == 0) check->pin_matched = 1;
        }
    }
    if (check->pin_matched) return 1;
    X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
    return 0;
}

// libcurl's CURLOPT_SSL_CTX_FUNCTION: `context` is the connection's SSL_CTX.
static CURLcode courier_ssl_context(CURL *easy, void *context, void *argument) {
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

void courier_easy_set_tls_check(CURL *easy, courier_tls_check *check) {
    curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, check ? courier_ssl_context : NULL);
    curl_easy_setopt(easy, CURLOPT_SSL_CTX_DATA, (void *)check);
}
