#!/usr/bin/env bash
# member-certs.sh DIR [DAYS] -> a CA and one member certificate for the member port's mutual TLS, with only the
# JDK's keytool (no openssl needed): DIR/ca.crt, DIR/tls.crt, DIR/tls.key (PKCS#8), and the CA's keystore
# DIR/ca.p12 to issue more. Every member may use the same certificate: members are not told apart by name, any
# holder of a certificate of this CA is one (docs/security.md), so keep the CA to one cluster.
#
#   scripts/tls/member-certs.sh /tmp/member-tls
#   java -jar node/target/dht-node.jar ... --member-tls-cert /tmp/member-tls/tls.crt \
#     --member-tls-key /tmp/member-tls/tls.key --member-tls-ca /tmp/member-tls/ca.crt
. "$(dirname "$0")/../lib.sh"

TLS_DIR=${1:?usage: member-certs.sh DIR [DAYS]}
TLS_DAYS=${2:-30}
TLS_PASS=member-tls
. "$(dirname "$0")/lib.sh"

mkdir -p "$TLS_DIR"
tls_ca "CN=dht member CA"
tls_issue tls "CN=dht member" eku=serverAuth,clientAuth san=dns:localhost,ip:127.0.0.1
log "member TLS files in $TLS_DIR: tls.crt, tls.key, ca.crt (valid $TLS_DAYS days)"
