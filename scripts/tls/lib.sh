# Certificates with only the JDK's keytool (no openssl needed), for the scripts of this directory. Source it after
# scripts/lib.sh; TLS_DIR, TLS_DAYS and TLS_PASS must be set. The keystores are working files; the PEM keys written
# are what the node reads (keep them private).
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"
KEYTOOL="$JAVA_HOME/bin/keytool"

# tls_ca "CN=..." -> $TLS_DIR/ca.p12 (the CA's keystore, to issue more) and $TLS_DIR/ca.crt
tls_ca() {
  rm -f "$TLS_DIR/ca.p12"
  "$KEYTOOL" -genkeypair -alias ca -keyalg EC -groupname secp256r1 -dname "$1" -ext bc:c \
    -validity "$TLS_DAYS" -keystore "$TLS_DIR/ca.p12" -storetype PKCS12 -storepass "$TLS_PASS" 2>/dev/null
  "$KEYTOOL" -exportcert -rfc -alias ca -keystore "$TLS_DIR/ca.p12" -storepass "$TLS_PASS" > "$TLS_DIR/ca.crt"
}

# tls_issue NAME "CN=..." EXT... -> $TLS_DIR/NAME.crt signed by the CA, and its PKCS#8 key $TLS_DIR/NAME.key;
# EXT are keytool -ext values (key usages, names)
tls_issue() {
  local name=$1 dname=$2 ext=() e
  shift 2
  for e in "$@"; do ext+=(-ext "$e"); done
  rm -f "$TLS_DIR/$name.p12"
  "$KEYTOOL" -genkeypair -alias "$name" -keyalg EC -groupname secp256r1 -dname "$dname" \
    -validity "$TLS_DAYS" -keystore "$TLS_DIR/$name.p12" -storetype PKCS12 -storepass "$TLS_PASS" 2>/dev/null
  "$KEYTOOL" -certreq -alias "$name" -keystore "$TLS_DIR/$name.p12" -storepass "$TLS_PASS" \
    | "$KEYTOOL" -gencert -rfc -alias ca -keystore "$TLS_DIR/ca.p12" -storepass "$TLS_PASS" -validity "$TLS_DAYS" \
        -ext ku:c=digitalSignature "${ext[@]}" > "$TLS_DIR/$name.crt"
  (umask 077; "$JAVA_HOME/bin/java" "$DHT_ROOT/scripts/tls/Pkcs8.java" "$TLS_DIR/$name.p12" "$TLS_PASS" "$name" \
    > "$TLS_DIR/$name.key")
  rm -f "$TLS_DIR/$name.p12"
}
