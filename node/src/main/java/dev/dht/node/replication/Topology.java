package dev.dht.node.replication;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.http.Replicas;
import dev.dht.node.ring.Ring;
import dev.dht.node.topology.ServedState;
import dev.dht.node.topology.Stage;
import dev.dht.node.topology.TopologyState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The placement requests use: the rings of the member sets the node serves in its current topology state (one set,
 * or two during the joint stage of a move), rebuilt when the state changes. Requests read one immutable
 * {@link View} and use it throughout, so a change mid-request cannot mix two states (docs/cluster.md, "Scaling").
 */
public final class Topology implements ServedState {
    private static final Logger log = LoggerFactory.getLogger(Topology.class);

    private final String self;
    private final int replicationFactor;
    /** Rings of recent member sets: a move's stable ring is the last state's ring, not rebuilt. */
    private final Map<ClusterMembers, Ring> rings = new LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ClusterMembers, Ring> eldest) {
            return size() > 4;
        }
    };

    private volatile View view;

    /**
     * @param replicationFactor the configured factor, 0 meaning "the size of each set"
     * @param state             the first state, or null while the node has none (a new node asking its peers)
     */
    public Topology(String self, int replicationFactor, TopologyState state) {
        this.self = self;
        this.replicationFactor = replicationFactor;
        this.view = build(state);
    }

    /** A fixed member set (a static --cluster list, tests): stable at epoch 0 forever. */
    public static Topology fixed(String self, ClusterMembers members, int replicationFactor) {
        return new Topology(self, replicationFactor, TopologyState.initial(members));
    }

    /** Installs a new state (the topology manager calls this after persisting it). */
    public void install(TopologyState state) {
        install(state, System.nanoTime());
    }

    /**
     * Installs a new state; until {@code graceUntilNanos} a replica still accepts requests from the stage just before
     * it (see {@link View#admits}).
     */
    @Override
    public synchronized void install(TopologyState state, long graceUntilNanos) {
        view = build(state, graceUntilNanos);
        log.info("serving {}", state);
    }

    private synchronized View build(TopologyState state) {
        return build(state, System.nanoTime());
    }

    private synchronized View build(TopologyState state, long graceUntilNanos) {
        if (state == null) {
            return new View(self, null, null, null, 0, 0, graceUntilNanos);
        }
        Ring stableRing = ring(state.stable());
        Ring targetRing = state.stage() == Stage.JOINT ? ring(state.target()) : null;
        return new View(
                self,
                state,
                stableRing,
                targetRing,
                rf(stableRing.size()),
                targetRing == null ? 0 : rf(targetRing.size()),
                graceUntilNanos);
    }

    private Ring ring(ClusterMembers members) {
        return rings.computeIfAbsent(members, m -> new Ring(m.urls(), m.racks()));
    }

    /** The replication factor of a set of this size: the option capped at the size, or the size. */
    public int rf(int setSize) {
        return replicationFactor <= 0 ? setSize : Math.min(replicationFactor, setSize);
    }

    public View view() {
        return view;
    }

    @Override
    public TopologyState servedState() {
        return view.state();
    }

    public String self() {
        return self;
    }

    /**
     * One topology state as requests use it. Outside the joint stage only the stable set is served; in it, both.
     */
    public static final class View extends ViewBase {
        View(String self, TopologyState state, Ring ring, Ring targetRing, int rf, int targetRf, long graceUntilNanos) {
            super(self, state, ring, targetRing, rf, targetRf, graceUntilNanos);
        }

        /** False while the node has no topology state yet (it serves no entity request then). */
        public boolean decided() {
            return state != null;
        }

        public TopologyState state() {
            return state;
        }

        public boolean joint() {
            return targetRing != null;
        }

        public long version() {
            return version;
        }

        /** X-Dht-Topology on answers. */
        public String header() {
            return header;
        }

        /** The whole X-Dht-Topology header line of answers (built once per state), or null. */
        public String headerLine() {
            return headerLine;
        }

        /** X-Dht-Topology on requests (with this node's URL). */
        public String requestHeader() {
            return requestHeader;
        }

        public long minAccepted() {
            return minAccepted;
        }

        /**
         * Whether a request from a state of this version (no newer than this view's) may be served: from
         * {@link #minAccepted()} on, or the stage just before joint during the grace period after the switch.
         */
        public boolean admits(long version) {
            return version >= minAccepted || version == graceVersion && System.nanoTime() - graceUntilNanos < 0;
        }

        /** Ring of the stable set (S). */
        public Ring ring() {
            return ring;
        }

        /** This node's index in the stable set's ring, or -1 if it is not a member of it. */
        public int selfIndex() {
            return selfIndex;
        }

        public String member(int index) {
            return ring.member(index);
        }

        /** Every member requests go to: S, or S ∪ T in the joint stage. */
        public List<String> serving() {
            return serving;
        }

        /** The largest set served: the bound of a request's from. */
        public int maxMembers() {
            return Math.max(ring == null ? 0 : ring.size(), targetRing == null ? 0 : targetRing.size());
        }

        /** Whether the request is for this node alone: from 1, outside a joint stage, and this node the primary. */
        public boolean onlyLocal(Replicas replicas, long keyHash) {
            return replicas.from() == 1
                    && targetRing == null
                    && ring != null
                    && ring.primaryIndex(keyHash) == selfIndex;
        }

        /** The replicas of a key for a request, in each served set (docs/cluster.md, "Which replicas, per set"). */
        public Plan plan(long keyHash, Replicas replicas) {
            int fromS = from(replicas, ring.size(), rf);
            int ackS = ack(replicas, fromS);
            int[] s = new int[fromS];
            ring.replicaIndexes(keyHash, fromS, s);
            if (targetRing == null) {
                String[] urls = new String[fromS];
                int selfSlot = -1;
                for (int i = 0; i < fromS; i++) {
                    urls[i] = ring.member(s[i]);
                    if (s[i] == selfIndex) {
                        selfSlot = i;
                    }
                }
                return new Plan(urls, selfSlot, null, ackS, fromS, 0, 0);
            }
            int fromT = from(replicas, targetRing.size(), targetRf);
            int ackT = ack(replicas, fromT);
            int[] t = new int[fromT];
            targetRing.replicaIndexes(keyHash, fromT, t);
            String[] urls = new String[fromS + fromT];
            byte[] sets = new byte[fromS + fromT];
            int n = 0;
            for (int i = 0; i < fromS; i++) {
                urls[n] = ring.member(s[i]);
                sets[n++] = Plan.IN_S;
            }
            outer:
            for (int i = 0; i < fromT; i++) {
                String m = targetRing.member(t[i]);
                for (int j = 0; j < fromS; j++) {
                    if (urls[j].equals(m)) {
                        sets[j] |= Plan.IN_T;
                        continue outer;
                    }
                }
                urls[n] = m;
                sets[n++] = Plan.IN_T;
            }
            if (n < urls.length) {
                urls = java.util.Arrays.copyOf(urls, n);
                sets = java.util.Arrays.copyOf(sets, n);
            }
            int selfSlot = -1;
            String me =
                    selfIndex >= 0 ? ring.member(selfIndex) : targetSelf >= 0 ? targetRing.member(targetSelf) : null;
            if (me != null) {
                for (int i = 0; i < n; i++) {
                    if (urls[i].equals(me)) {
                        selfSlot = i;
                    }
                }
            }
            return new Plan(urls, selfSlot, sets, ackS, fromS, ackT, fromT);
        }

        /** The key's replicas at the default factor, in every served set: where a re-routed hint goes. */
        public List<String> replicasOf(byte[] key) {
            Plan p = plan(Ring.keyHash(key), new Replicas(1, 1, true));
            return List.of(p.urls);
        }

        /**
         * Whether a cluster range without these members could miss keys: as many unreachable as a served set's
         * replication factor (then some key may have no reachable copy in that set).
         */
        public boolean rangeIncomplete(List<String> unreachable) {
            int inS = 0;
            int inT = 0;
            for (String m : unreachable) {
                if (ring.indexOf(m) >= 0) {
                    inS++;
                }
                if (targetRing != null && targetRing.indexOf(m) >= 0) {
                    inT++;
                }
            }
            return inS >= rf || targetRing != null && inT >= targetRf;
        }

        /** Default: the set's factor; explicit: capped at the set's size. */
        static int from(Replicas r, int size, int setRf) {
            return r.defaulted() ? setRf : Math.min(r.from(), size);
        }

        static int ack(Replicas r, int from) {
            return r.defaulted() ? Replicas.quorum(from) : Math.min(r.ack(), from);
        }
    }

    /**
     * The members one request goes to, each once, and what each set needs: {@code ack} stored (or answered) among
     * its members in S and among those in T. Outside a joint stage the T part is empty and needs nothing.
     */
    public static final class Plan {
        static final byte IN_S = 1;
        static final byte IN_T = 2;

        final String[] urls;
        final int selfSlot;
        /** Per slot: IN_S, IN_T or both; null when only S is served (every slot is in S). */
        private final byte[] sets;

        final int ackS;
        final int fromS;
        final int ackT;
        final int fromT;

        Plan(String[] urls, int selfSlot, byte[] sets, int ackS, int fromS, int ackT, int fromT) {
            this.urls = urls;
            this.selfSlot = selfSlot;
            this.sets = sets;
            this.ackS = ackS;
            this.fromS = fromS;
            this.ackT = ackT;
            this.fromT = fromT;
        }

        boolean inS(int slot) {
            return sets == null || (sets[slot] & IN_S) != 0;
        }

        boolean inT(int slot) {
            return sets != null && (sets[slot] & IN_T) != 0;
        }

        /** Whether only one replica set is served (no move in progress): then urls holds exactly its replicas. */
        boolean servesOneSet() {
            return sets == null;
        }

        /** A fresh count of answers against this plan. */
        Count count() {
            return new Count(this);
        }

        @Override
        public String toString() {
            return java.util.Arrays.toString(urls) + " S " + ackS + "/" + fromS
                    + (sets == null ? "" : " T " + ackT + "/" + fromT);
        }
    }

    /** Successes and failures of one round of a request, per set. Not thread-safe: callers hold their lock. */
    static final class Count {
        private final Plan plan;
        private int okS;
        private int okT;
        private int failS;
        private int failT;

        Count(Plan plan) {
            this.plan = plan;
        }

        /** Records a success; true when this one makes both quorums (exactly once). */
        boolean ok(int slot) {
            boolean before = reached();
            if (plan.inS(slot)) {
                okS++;
            }
            if (plan.inT(slot)) {
                okT++;
            }
            return !before && reached();
        }

        /** Records a failure; true when this one makes a quorum unreachable (exactly once). */
        boolean fail(int slot) {
            boolean before = lost();
            if (plan.inS(slot)) {
                failS++;
            }
            if (plan.inT(slot)) {
                failT++;
            }
            return !before && lost();
        }

        boolean reached() {
            return okS >= plan.ackS && okT >= plan.ackT;
        }

        boolean lost() {
            return failS > plan.fromS - plan.ackS || failT > plan.fromT - plan.ackT;
        }

        /** "2 of 3 in S and 1 of 3 in T" for error messages. */
        String needed() {
            return plan.ackS + " of " + plan.fromS
                    + (plan.sets == null
                            ? ""
                            : " in the stable set and " + plan.ackT + " of " + plan.fromT + " in the target set");
        }
    }
}
