package dev.dht.node.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The member's one key and certificate chain, offered for both sides of a connection. Held directly rather than
 * through a keystore: an in-memory PKCS#12 store encrypts and decrypts the key with thousands of PBKDF2 rounds,
 * which made loading the files take seconds on a busy machine, at every start and every rotation.
 */
final class MemberKeyManager extends X509ExtendedKeyManager {
    private static final String ALIAS = "member";

    private final PrivateKey key;
    private final X509Certificate[] chain;

    MemberKeyManager(PrivateKey key, List<X509Certificate> chain) {
        this.key = key;
        this.chain = chain.toArray(new X509Certificate[0]);
    }

    /** Whether the key serves the handshake's key type ("EC", "RSA", "RSASSA-PSS", "EdDSA", ...). */
    private boolean fits(String keyType) {
        String algorithm = key.getAlgorithm();
        return keyType.equalsIgnoreCase(algorithm)
                || algorithm.equals("RSA") && keyType.startsWith("RSA")
                || (algorithm.equals("Ed25519") || algorithm.equals("Ed448")) && keyType.equals("EdDSA");
    }

    /** Whether the chain was issued by one of the CAs the peer named (none named: any). */
    private boolean issuedByOneOf(Principal[] issuers) {
        if (issuers == null || issuers.length == 0) {
            return true;
        }
        for (X509Certificate c : chain) {
            for (Principal p : issuers) {
                if (p.equals(c.getIssuerX500Principal())) {
                    return true;
                }
            }
        }
        return false;
    }

    private String alias(String keyType, Principal[] issuers) {
        return keyType != null && fits(keyType) && issuedByOneOf(issuers) ? ALIAS : null;
    }

    private String alias(String[] keyTypes, Principal[] issuers) {
        if (keyTypes != null) {
            for (String t : keyTypes) {
                if (alias(t, issuers) != null) {
                    return ALIAS;
                }
            }
        }
        return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return alias(keyType, issuers) == null ? null : new String[] {ALIAS};
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        return alias(keyTypes, issuers);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        return alias(keyTypes, issuers);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return alias(keyType, issuers) == null ? null : new String[] {ALIAS};
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return alias(keyType, issuers);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return alias(keyType, issuers);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return ALIAS.equals(alias) ? chain.clone() : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return ALIAS.equals(alias) ? key : null;
    }
}
