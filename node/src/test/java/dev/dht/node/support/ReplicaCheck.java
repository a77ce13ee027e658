package dev.dht.node.support;

import static org.awaitility.Awaitility.await;

import dev.dht.node.api.RangeFrame;
import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.http.Headers;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.release.Release;
import dev.dht.node.ring.Ring;
import dev.dht.node.storage.Record;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Whether every acknowledged key is on each of its replicas by a ring, asked of each replica alone: an internal
 * {@code GET /v0/entities} ({@code X-Dht-Internal: 1}) is answered with every record of that member's local store,
 * is never coordinated and repairs nothing. A quorum read cannot tell this: it asks two of three replicas and repairs
 * what it touches, so a move that left one new owner empty would pass it.
 *
 * <p>A write acknowledged at 2/3 reaches its third replica a moment later (or through a hint), so {@link #missing}
 * asks again, within a bound, only the copies still missing (asking repairs nothing).
 */
public final class ReplicaCheck {
    private final Map<String, byte[]> acked;
    private final Ring ring;
    private final int rf;
    private final Function<String, URI> memberPlane;

    /**
     * @param acked       every acknowledged key with the value it was written with (written once)
     * @param members     the final member list
     * @param rf          the replication factor on it
     * @param memberPlane where a member (its URL in the member list) serves internal requests
     */
    public ReplicaCheck(
            Map<String, byte[]> acked, Collection<String> members, int rf, Function<String, URI> memberPlane) {
        this(acked, ClusterMembers.of(members), rf, memberPlane);
    }

    /** As above, for members that may be in racks (the ring places by rack then). */
    public ReplicaCheck(Map<String, byte[]> acked, ClusterMembers members, int rf, Function<String, URI> memberPlane) {
        this.acked = Map.copyOf(acked);
        this.ring = new Ring(members.urls(), members.racks());
        this.rf = rf;
        this.memberPlane = memberPlane;
    }

    /**
     * Members named by their client URLs, serving internal requests on the member plane: the same host, the client
     * port plus the default offset (as every test node is started).
     */
    public static ReplicaCheck onUrls(Map<String, byte[]> acked, Collection<String> members, int rf) {
        return onUrls(acked, ClusterMembers.of(members), rf);
    }

    /** {@link #onUrls(Map, Collection, int)} for members that may be in racks. */
    public static ReplicaCheck onUrls(Map<String, byte[]> acked, ClusterMembers members, int rf) {
        MemberPlane plane = new MemberPlane(SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET);
        return new ReplicaCheck(acked, members, rf, url -> {
            URI client = URI.create(url);
            return URI.create(client.getScheme() + "://" + client.getHost() + ":" + plane.port(url));
        });
    }

    /** One copy that should exist: a key on one of its replicas. */
    public record Copy(String key, String member) {}

    /** Every (key, replica) pair by the ring. */
    public List<Copy> expected() {
        List<Copy> out = new ArrayList<>(acked.size() * rf);
        for (String key : acked.keySet()) {
            for (String member : ring.replicasFor(key.getBytes(StandardCharsets.UTF_8), rf)) {
                out.add(new Copy(key, member));
            }
        }
        return out;
    }

    /** How many acknowledged keys have {@code member} among their replicas by this ring. */
    public int keysOn(String member) {
        String m = ClusterMembers.of(List.of(member)).urls().get(0);
        int n = 0;
        for (String key : acked.keySet()) {
            if (ring.replicasFor(key.getBytes(StandardCharsets.UTF_8), rf).contains(m)) {
                n++;
            }
        }
        return n;
    }

    /**
     * How many acknowledged keys have {@code member} among their replicas by this ring and not among their first
     * {@code previousRf} replicas on {@code previous}: the keys a move from {@code previous} had to stream to it.
     */
    public int newCopiesOn(String member, Collection<String> previous, int previousRf) {
        return newCopiesOn(member, ClusterMembers.of(previous), previousRf);
    }

    /** {@link #newCopiesOn(String, Collection, int)} from members that may be in racks. */
    public int newCopiesOn(String member, ClusterMembers previous, int previousRf) {
        String m = ClusterMembers.of(List.of(member)).urls().get(0);
        Ring before = new Ring(previous.urls(), previous.racks());
        int n = 0;
        for (String key : acked.keySet()) {
            byte[] k = key.getBytes(StandardCharsets.UTF_8);
            if (ring.replicasFor(k, rf).contains(m)
                    && !before.replicasFor(k, previousRf).contains(m)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Asks each replica for its copies until none is missing or {@code bound} passes (only the missing ones are
     * asked again); returns the problems left (empty when every copy is there with its value), each "key on
     * member: what it answered", the first pass's count first.
     */
    public List<String> missing(Duration bound) throws Exception {
        AtomicReference<Map<Copy, String>> problems = new AtomicReference<>(check(expected()));
        int first = problems.get().size();
        try {
            await().atMost(bound)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> problems.get().isEmpty()
                            || problems.updateAndGet(p -> recheck(p)).isEmpty());
        } catch (ConditionTimeoutException e) {
            // reported below
        }
        List<String> out = new ArrayList<>();
        if (!problems.get().isEmpty()) {
            out.add(first + " of " + expected().size() + " copies missing or wrong at first, "
                    + problems.get().size() + " after " + bound + ":");
        }
        problems.get().forEach((c, p) -> out.add(c.key() + " on " + c.member() + ": " + p));
        return out;
    }

    private Map<Copy, String> recheck(Map<Copy, String> problems) {
        try {
            return check(new ArrayList<>(problems.keySet()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * One pass over these copies: the problem of each one that is not right (absent when it is). Each member
     * concerned is asked once for every record it holds (an internal {@code GET /v0/entities}: its local store
     * only, tombstones included).
     */
    public Map<Copy, String> check(List<Copy> copies) throws Exception {
        Map<String, Map<String, Record>> held = new HashMap<>();
        for (Copy c : copies) {
            if (!held.containsKey(c.member())) {
                held.put(c.member(), localRecords(memberPlane.apply(c.member())));
            }
        }
        Map<Copy, String> bad = new LinkedHashMap<>();
        for (Copy c : copies) {
            Map<String, Record> records = held.get(c.member());
            Record r = records == null ? null : records.get(c.key());
            String problem = records == null
                    ? "no answer"
                    : r == null
                            ? "absent"
                            : r.isTombstone()
                                    ? "a tombstone"
                                    : Arrays.equals(r.value(), acked.get(c.key())) ? null : "another value";
            if (problem != null) {
                bad.put(c, problem);
            }
        }
        return bad;
    }

    /** Every record a member holds, by key; null if it did not answer. */
    private static Map<String, Record> localRecords(URI member) throws IOException {
        try (RawHttp http = new RawHttp(MemberTlsMode.connect(member.getPort()))) {
            // a member of this release asks (a cluster at a raised feature level refuses requests naming none)
            http.send("GET /v0/entities?start=%00 HTTP/1.1\r\nHost: localhost\r\n" + Headers.INTERNAL + ": 1\r\n"
                    + Release.MEMBER_HEADER + ": " + Release.VERSION + "\r\nConnection: close\r\n\r\n");
            RawHttp.Reply reply = http.read();
            if (reply.status() != 200) {
                throw new AssertionError(
                        "the local records of " + member + ": status " + reply.status() + " " + reply.bodyText());
            }
            Map<String, Record> out = new HashMap<>();
            for (byte[] frame : reply.chunks()) {
                out.put(new String(RangeFrame.key(frame), StandardCharsets.UTF_8), RangeFrame.record(frame));
            }
            return out;
        } catch (java.net.ConnectException e) {
            return null;
        }
    }
}
