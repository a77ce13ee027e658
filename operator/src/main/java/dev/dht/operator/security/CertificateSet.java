package dev.dht.operator.security;

import java.time.Duration;
import java.util.List;

/**
 * One port's certificates as security.tls.TlsPlan keeps them: where the CA and the certificate live, what the
 * certificate must name, and when it is renewed or its CA replaced. Here, beside {@link SecurityModel} whose
 * records implement it, so that security/ does not depend on security.tls/ (which uses security/). The member port's
 * ({@link dev.dht.operator.security.SecurityModel.Tls}) and the client port's
 * ({@link dev.dht.operator.security.SecurityModel.ClientTls}) go through the same plan and the same Secrets' shape.
 */
public interface CertificateSet {
    /** The CA's Secret (ca.crt, ca.key; never mounted). */
    String caSecret();

    /** The Secret the members mount: tls.crt, tls.key, ca.crt (the CAs trusted). */
    String secretName();

    /** The DNS names the certificate must cover, in the order it names them. */
    List<String> dnsNames();

    /** IP addresses it names too (none for members). */
    List<String> ipAddresses();

    Duration certificateDuration();

    Duration renewBefore();

    Duration caDuration();

    Duration caRenewBefore();

    /** The value of the dht.dev/renew-certificate annotation ("" if none). */
    String renewRequest();

    /** The value of the dht.dev/replace-ca annotation ("" if none). */
    String replaceCaRequest();

    /**
     * The least time each phase of a CA replacement lasts once every member uses the previous one: zero for the
     * member port (the operator sees every party), the time clients outside the cluster need to load a new CA
     * bundle or certificate for the client port.
     */
    Duration phaseGrace();

    /** Whose certificate it is, for messages: "the members'", "the client port's". */
    String owner();
}
