package dev.dht.node.topology;

import dev.dht.node.config.ClusterMembers;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One topology state: the stable member set, and while a move runs its target set and stage (docs/cluster.md,
 * "The topology state and its identity"). Immutable; the transitions return new states.
 *
 * @param epoch  0 for a fresh cluster; a move from stable(e-1) runs at epoch e
 * @param stage  where the move is; {@link Stage#STABLE} when there is none
 * @param stable S: the set served in stable and announced, and one of the two in joint
 * @param target T while a move runs, else null
 */
public record TopologyState(long epoch, Stage stage, ClusterMembers stable, ClusterMembers target) {

    public TopologyState {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(stable, "stable");
        if (epoch < 0) {
            throw new IllegalArgumentException("negative epoch " + epoch);
        }
        if ((stage == Stage.STABLE) != (target == null)) {
            throw new IllegalArgumentException("a target set exists exactly while a move runs (stage " + stage + ")");
        }
    }

    /** A fresh cluster's first state. */
    public static TopologyState initial(ClusterMembers members) {
        return new TopologyState(0, Stage.STABLE, members, null);
    }

    /** Total order of states: 3 x epoch + (announced 0, joint 1, stable 2). */
    public long version() {
        return version(epoch, stage);
    }

    public static long version(long epoch, Stage stage) {
        return 3 * epoch + stage.rank;
    }

    public boolean moving() {
        return stage != Stage.STABLE;
    }

    public String stableId() {
        return TopologyId.of(stable);
    }

    public String targetId() {
        return target == null ? null : TopologyId.of(target);
    }

    /** The value of X-Dht-Topology on answers: epoch.stage.id(S).id(T)|- */
    public String header() {
        return epoch + "." + stage.letter + "." + stableId() + "." + (target == null ? "-" : targetId());
    }

    /** The set a node ends up serving: the target while moving, else the stable set (the contract's "members"). */
    public ClusterMembers destination() {
        return target == null ? stable : target;
    }

    /** S ∪ T: every member that takes part in the current move (just S when stable). */
    public List<String> participants() {
        Set<String> all = new LinkedHashSet<>(stable.urls());
        if (target != null) {
            all.addAll(target.urls());
        }
        return List.copyOf(new java.util.TreeSet<>(all));
    }

    // ---- transitions ----------------------------------------------------------------------------------------

    /** stable(e-1, S) -> announced(e, S, T). */
    public TopologyState announce(ClusterMembers next) {
        if (stage != Stage.STABLE) {
            throw new IllegalStateException("a move is already running: " + this);
        }
        if (next.equals(stable)) {
            throw new IllegalArgumentException("the target equals the stable set");
        }
        return new TopologyState(epoch + 1, Stage.ANNOUNCED, stable, next);
    }

    /** announced(e, S, T) -> announced(e+1, S, T'): the file changed again before anything moved. */
    public TopologyState reannounce(ClusterMembers next) {
        if (stage != Stage.ANNOUNCED) {
            throw new IllegalStateException("only an announced move may be replaced: " + this);
        }
        if (next.equals(stable) || next.equals(target)) {
            throw new IllegalArgumentException("re-announce needs a new target");
        }
        return new TopologyState(epoch + 1, Stage.ANNOUNCED, stable, next);
    }

    /** announced(e, S, T) -> stable(e, S): the file went back to S before anything moved. */
    public TopologyState abort() {
        if (stage != Stage.ANNOUNCED) {
            throw new IllegalStateException("only an announced move may be aborted: " + this);
        }
        return new TopologyState(epoch, Stage.STABLE, stable, null);
    }

    /** announced(e, S, T) -> joint(e, S, T). */
    public TopologyState joint() {
        if (stage != Stage.ANNOUNCED) {
            throw new IllegalStateException("joint follows announced: " + this);
        }
        return new TopologyState(epoch, Stage.JOINT, stable, target);
    }

    /** joint(e, S, T) -> stable(e, T). */
    public TopologyState finish() {
        if (stage != Stage.JOINT) {
            throw new IllegalStateException("only a joint move finalizes: " + this);
        }
        return new TopologyState(epoch, Stage.STABLE, target, null);
    }

    /**
     * Whether {@code other} is this very state or a later point of the same lineage within this epoch, e.g.
     * joint(e, S, T) after announced(e, S, T), or stable(e, T) after either. Used to read peers' reports: a peer at
     * a later state of our own move has done what that state implies.
     */
    public boolean reachedBy(TopologyState other) {
        if (other.epoch != epoch) {
            return other.epoch > epoch;
        }
        if (other.version() < version()) {
            return false;
        }
        if (other.stage == Stage.STABLE) {
            // stable(e, X) follows announced/joint(e, S, T) iff X = T (finalized), or X = S after an abort
            return stage == Stage.STABLE
                    ? other.stable.equals(stable)
                    : other.stable.equals(target) || (stage == Stage.ANNOUNCED && other.stable.equals(stable));
        }
        return other.stable.equals(stable) && Objects.equals(other.target, target);
    }

    @Override
    public String toString() {
        return stage.jsonName() + "(" + epoch + ", " + stable.size() + " members " + stableId()
                + (target == null ? "" : " -> " + target.size() + " members " + targetId()) + ")";
    }
}
