package dev.dht.node.auth;

import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;

/**
 * A client certificate as the client port's checks see it (docs/security.md, "Client certificates"): its subject,
 * and the scope it grants. The subject's organization ({@code O}) names the scope, as a token's line does:
 * {@code O=read-only}, {@code O=read-write} or {@code O=admin} (the way Kubernetes reads groups from a client
 * certificate); other organizations are ignored, and with several scopes the largest counts. A certificate without
 * one authenticates its connection but grants nothing: its requests need a token. The CA decides what it signs, so
 * the CA of client certificates must be the cluster's own (the operator keeps one per cluster). Read once per
 * connection, not per request.
 *
 * @param scope the scope it grants, or null
 */
public record ClientCertificate(String subject, Scope scope) {

    /** The certificate as the checks see it, or null for none. */
    public static ClientCertificate of(X509Certificate certificate) {
        if (certificate == null) {
            return null;
        }
        X500Principal subject = certificate.getSubjectX500Principal();
        return new ClientCertificate(subject.getName(X500Principal.RFC2253), scope(subject));
    }

    static Scope scope(X500Principal subject) {
        LdapName name;
        try {
            name = new LdapName(subject.getName(X500Principal.RFC2253));
        } catch (InvalidNameException e) {
            return null;
        }
        Scope best = null;
        for (Rdn rdn : name.getRdns()) {
            if (rdn.getType().equalsIgnoreCase("O") && rdn.getValue() instanceof String value) {
                Scope s = Scope.parse(value.strip());
                if (s != null && (best == null || s.allows(best))) {
                    best = s;
                }
            }
        }
        return best;
    }
}
