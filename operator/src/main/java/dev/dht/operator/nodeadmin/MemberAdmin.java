package dev.dht.operator.nodeadmin;

import dev.dht.operator.repair.MemberRepair;
import dev.dht.operator.rollout.MemberHints;
import dev.dht.operator.scaling.MemberMovement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The operator's calls to the nodes' admin API: a member's data movement while the cluster scales, its repair and
 * rebuild, and the backup and restore calls (docs/operations.md, "Back up and restore").
 */
public interface MemberAdmin {
    /**
     * {@code METHOD <baseUrl><path>} with a JSON body (null: none). Never fails: no answer completes it with
     * {@link AdminAnswer#failed}. Completes within the timeout (plus the connect timeout).
     */
    CompletableFuture<AdminAnswer> call(
            String baseUrl, String method, String path, Map<String, Object> body, java.time.Duration timeout);

    /** Calls every member at once and waits for all answers. */
    default <K> Map<K, AdminAnswer> callAll(
            Map<K, String> baseUrls,
            String method,
            String path,
            java.util.function.Function<K, Map<String, Object>> body,
            java.time.Duration timeout) {
        var pending = new LinkedHashMap<K, CompletableFuture<AdminAnswer>>();
        baseUrls.forEach((key, url) -> pending.put(key, call(url, method, path, body.apply(key), timeout)));
        var out = new LinkedHashMap<K, AdminAnswer>();
        pending.forEach((key, answer) -> out.put(key, answer.join()));
        return out;
    }

    /**
     * {@code GET <baseUrl>/v0/admin/movement}. Never fails: a refused connection, a timeout, an error status or a
     * body that is not the contract's JSON complete it with {@link MemberMovement#unknown}. Completes within the
     * implementation's timeout.
     */
    CompletableFuture<MemberMovement> movement(String baseUrl);

    /**
     * {@code GET <baseUrl>/v0/admin/repair}. Never fails: anything but the contract's JSON completes it with
     * {@link MemberRepair#unknown}. Completes within the implementation's timeout.
     */
    CompletableFuture<MemberRepair> repair(String baseUrl);

    /**
     * {@code GET <baseUrl>/metrics}: the hints the member still holds ({@code dht_hints_pending}). Never fails: anything
     * else completes it with {@link MemberHints#unknown}. Completes within the implementation's timeout.
     */
    CompletableFuture<MemberHints> hints(String baseUrl);

    /** Every member's pending hints, asked all at once (each bounded by the timeout). */
    default <K> Map<K, MemberHints> hintsOf(Map<K, String> baseUrls) {
        return askAll(baseUrls, this::hints);
    }

    /** Every member's repair report, asked all at once (each bounded by the timeout). */
    default <K> Map<K, MemberRepair> repairs(Map<K, String> baseUrls) {
        return askAll(baseUrls, this::repair);
    }

    /**
     * The same calls, carrying {@code Authorization: Bearer <token>}: the operator's own admin token of a cluster whose
     * nodes require tokens. Implementations that send nothing over the wire may ignore it.
     */
    default MemberAdmin authenticated(java.util.Optional<String> bearerToken) {
        return this;
    }

    /**
     * The same calls with everything the client port asks of the operator: its token, and when the port speaks TLS
     * https:// with the cluster's CAs and its client certificate. Implementations that send nothing over the wire may
     * ignore it.
     */
    default MemberAdmin authenticated(NodeCredentials credentials) {
        return authenticated(credentials.token());
    }

    /** Asks every member at once and waits for all answers (each bounded by the timeout). */
    default <K> Map<K, MemberMovement> movements(Map<K, String> baseUrls) {
        return askAll(baseUrls, this::movement);
    }

    /** Sends every question before waiting for the first answer, so the members answer in parallel. */
    private static <K, T> Map<K, T> askAll(Map<K, String> baseUrls, Function<String, CompletableFuture<T>> ask) {
        var pending = new LinkedHashMap<K, CompletableFuture<T>>();
        baseUrls.forEach((key, url) -> pending.put(key, ask.apply(url)));
        var out = new LinkedHashMap<K, T>();
        pending.forEach((key, answer) -> out.put(key, answer.join()));
        return out;
    }
}
