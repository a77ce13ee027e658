package dev.dht.node.config;

import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of the node's planes (docs/security.md): where the member port is and whether it may run in plaintext
 * beyond loopback, the client port's TLS and credentials, the metrics port.
 *
 * @param memberPortOffset the member port is the client port plus this, the same on every member (8080 -> 18080):
 *                         a member's member-plane address is derived from its client base URL in the member list
 * @param memberInsecure   TEST NETWORKS ONLY: serve the member port in plaintext on every interface, so members on
 *                         other hosts can talk without certificates; without it and without TLS the member port
 *                         listens on loopback only
 * @param maxClockAhead    clock readings and record timestamps further ahead of the local wall clock are refused,
 *                         never merged ({@link dev.dht.node.clock.HybridLogicalClock#DEFAULT_MAX_AHEAD} says why 30 s)
 * @param authTokens       the client tokens file ({@code <scope> <token>} a line), or null: no tokens
 * @param memberTls        the member port's mutual TLS files, or null: no TLS (loopback, or --member-insecure)
 * @param clientTls        the client port's TLS files, or null: the client port is plaintext
 * @param metricsPort      a plaintext port serving GET /metrics and /v0/status only, or 0 for none
 */
@RecordBuilder
public record SecuritySettings(
        int memberPortOffset,
        boolean memberInsecure,
        Duration maxClockAhead,
        Path authTokens,
        TlsFiles memberTls,
        ClientTlsFiles clientTls,
        int metricsPort)
        implements SecuritySettingsBuilder.With {

    /**
     * The member's certificate (PEM, its chain), its PKCS#8 key (PEM), and the CAs it trusts (PEM, one or more:
     * during a CA rotation the old and the new).
     */
    public record TlsFiles(Path cert, Path key, Path ca) {}

    /**
     * The client port's certificate (PEM, its chain) and PKCS#8 key, and with client certificates the CAs that
     * issue them (null with {@link ClientCertificates#NONE}).
     */
    public record ClientTlsFiles(Path cert, Path key, Path ca, ClientCertificates certificates) {}

    /** Client certificates: asked for and required, asked for and checked if presented, or not asked for. */
    public enum ClientCertificates {
        REQUIRED,
        OPTIONAL,
        NONE;

        /** {@code required} or {@code optional} as --client-auth is written; IllegalArgumentException otherwise. */
        public static ClientCertificates parse(String text) {
            return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
                case "required" -> REQUIRED;
                case "optional" -> OPTIONAL;
                default -> throw new IllegalArgumentException("'" + text + "' is not required or optional");
            };
        }
    }

    public static final int DEFAULT_MEMBER_PORT_OFFSET = NodeOption.MEMBER_PORT_OFFSET.intDefault();
    public static final Duration DEFAULT_MAX_CLOCK_AHEAD = NodeOption.MAX_CLOCK_AHEAD.durationDefault();

    public static SecuritySettings defaults() {
        return new SecuritySettings(
                DEFAULT_MEMBER_PORT_OFFSET,
                NodeOption.MEMBER_INSECURE.boolDefault(),
                DEFAULT_MAX_CLOCK_AHEAD,
                null,
                null,
                null,
                0);
    }
}
