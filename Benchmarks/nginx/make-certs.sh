#!/bin/sh
# Makes the certificates nginx-h2.conf serves, in DIR: a root CA (ca.pem, what the benchmark
# trusts with --h2-ca-file) and a server certificate for 127.0.0.1 and localhost signed by it
# (server.pem, server.key). EC P-256, valid two days; made at run time, never committed.
#   Benchmarks/nginx/make-certs.sh /tmp/courier-nginx-h2/tls
set -eu
dir=${1:?usage: make-certs.sh DIR}
mkdir -p "$dir"
cd "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 \
    -subj "/CN=courier-bench CA" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr \
    -subj "/CN=localhost" 2>/dev/null
printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=serverAuth" "subjectAltName=DNS:localhost,IP:127.0.0.1" > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial 2 -days 2 -extfile server.ext \
    -out server.pem 2>/dev/null
rm -f server.csr server.ext
