package dev.dht.operator.nodeadmin;

import dev.dht.operator.repair.MemberRepair;
import dev.dht.operator.scaling.MemberMovement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The operator's calls to the nodes' admin API: a member's data movement, and its repair and rebuild. */
public interface MemberAdmin {
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

  /** Every member's repair report, asked all at once. */
  default <K> Map<K, MemberRepair> repairs(Map<K, String> baseUrls) {
    var pending = new LinkedHashMap<K, CompletableFuture<MemberRepair>>();
    baseUrls.forEach((key, url) -> pending.put(key, repair(url)));
    var out = new LinkedHashMap<K, MemberRepair>();
    pending.forEach((key, answer) -> out.put(key, answer.join()));
    return out;
  }

  /**
   * The same calls, carrying {@code Authorization: Bearer <token>}: the operator's own admin token of a cluster whose
   * nodes require tokens. Implementations that send nothing over the wire may ignore it.
   */
  default MemberAdmin authenticated(java.util.Optional<String> bearerToken) {
    return this;
  }

  /** Asks every member at once and waits for all answers (each bounded by the timeout). */
  default <K> Map<K, MemberMovement> movements(Map<K, String> baseUrls) {
    var pending = new LinkedHashMap<K, CompletableFuture<MemberMovement>>();
    baseUrls.forEach((key, url) -> pending.put(key, movement(url)));
    var out = new LinkedHashMap<K, MemberMovement>();
    pending.forEach((key, answer) -> out.put(key, answer.join()));
    return out;
  }
}
