import java.io.FileInputStream;
import java.security.Key;
import java.security.KeyStore;
import java.util.Base64;

/**
 * Prints a keystore entry's private key as PKCS#8 PEM (what the node's --member-tls-key reads): keytool makes keys
 * and certificates but cannot export a private key. Run with the JDK's single-file launcher:
 * java scripts/tls/Pkcs8.java KEYSTORE.p12 PASSWORD ALIAS
 */
public class Pkcs8 {
    public static void main(String[] args) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(args[0])) {
            ks.load(in, args[1].toCharArray());
        }
        Key key = ks.getKey(args[2], args[1].toCharArray());
        System.out.print("-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
    }
}
