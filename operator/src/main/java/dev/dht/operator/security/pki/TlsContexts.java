package dev.dht.operator.security.pki;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** JDK TLS contexts from a credential and the CAs to trust (no files, no key store on disk). */
public final class TlsContexts {
    private static final char[] NO_PASSWORD = new char[0];

    private TlsContexts() {}

    /**
     * A TLS 1.2/1.3 context that presents {@code credential} (null: no certificate) and trusts exactly
     * {@code trusted}.
     */
    public static SSLContext of(Credential credential, List<X509Certificate> trusted) {
        try {
            javax.net.ssl.KeyManager[] keyManagers = null;
            if (credential != null) {
                var keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry(
                        "self", credential.key(), NO_PASSWORD, new X509Certificate[] {credential.certificate()});
                var factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                factory.init(keys, NO_PASSWORD);
                keyManagers = factory.getKeyManagers();
            }
            var context = SSLContext.getInstance("TLS");
            context.init(keyManagers, trustManagers(trusted), null);
            return context;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new PkiException("cannot make a TLS context: " + e.getMessage(), e);
        }
    }

    private static javax.net.ssl.TrustManager[] trustManagers(List<X509Certificate> trusted)
            throws GeneralSecurityException, java.io.IOException {
        var store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        for (int i = 0; i < trusted.size(); i++) {
            store.setCertificateEntry("ca-" + i, trusted.get(i));
        }
        var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory.getTrustManagers();
    }
}
