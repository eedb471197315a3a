// The part of OpenSSL 3's stable ABI (libssl.so.3, libcrypto.so.3) that TLSCheck.c calls,
// declared as ssl.h, x509.h, x509_vfy.h, sha.h, crypto.h and stack.h declare it, so that
// building needs no libssl-dev. OpenSSL's types are opaque here as they are there. Its header
// macros over these functions (sk_X509_num, sk_X509_value, OPENSSL_free) are spelled out at
// their call sites. `.ci/check-c-declarations` includes this file after the real headers.
#ifndef COURIER_OPENSSL_FUNCTIONS_H
#define COURIER_OPENSSL_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct x509_st X509;
typedef struct x509_store_ctx_st X509_STORE_CTX;
typedef struct X509_pubkey_st X509_PUBKEY;
typedef struct stack_st OPENSSL_STACK;
struct stack_st_X509;

#define X509_V_ERR_APPLICATION_VERIFICATION 50
#define SSL_OP_BIT(n) ((uint64_t)1 << (uint64_t)n)
#define SSL_OP_NO_RENEGOTIATION SSL_OP_BIT(30)

uint64_t SSL_CTX_set_options(SSL_CTX *ctx, uint64_t op);
int SSL_CTX_load_verify_locations(SSL_CTX *ctx, const char *CAfile, const char *CApath);
void SSL_CTX_set_cert_verify_callback(SSL_CTX *ctx, int (*cb)(X509_STORE_CTX *, void *), void *arg);

int X509_verify_cert(X509_STORE_CTX *ctx);
struct stack_st_X509 *X509_STORE_CTX_get0_chain(const X509_STORE_CTX *ctx);
void X509_STORE_CTX_set_error(X509_STORE_CTX *ctx, int s);
X509_PUBKEY *X509_get_X509_PUBKEY(const X509 *x);
int i2d_X509_PUBKEY(const X509_PUBKEY *a, unsigned char **out);

int OPENSSL_sk_num(const OPENSSL_STACK *);
void *OPENSSL_sk_value(const OPENSSL_STACK *, int);
unsigned char *SHA256(const unsigned char *d, size_t n, unsigned char *md);
void CRYPTO_free(void *ptr, const char *file, int line);

#endif
