package dev.dht.operator.scaling;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * The replication factor the nodes get. Every member of a move must compute replica sets with the same factor
 * (docs/cluster.md, "Guarantees"), and a new factor reaches the pods through a rolling update, one pod at a time:
 * so while a scale is in progress the nodes keep the factor they run with, and the spec's new one is held back
 * (the Refused condition and a Warning Event say so) until the scale is done.
 */
public final class FactorHold {
    public static final String REASON = "ReplicationFactorHeldDuringScaling";

    private FactorHold() {}

    /** @param factor what the nodes get; {@code refusal} present when it is not the spec's */
    public record Result(int factor, Optional<Refusal> refusal) {}

    /**
     * @param specFactor the factor the spec asks for (or its default)
     * @param liveFactor the factor in the live node config; empty when there is none yet
     * @param scaling    a scale is in progress (after this reconcile's step)
     */
    public static Result decide(int specFactor, OptionalInt liveFactor, boolean scaling) {
        if (!scaling || liveFactor.isEmpty() || liveFactor.getAsInt() == specFactor) {
            return new Result(specFactor, Optional.empty());
        }
        int live = liveFactor.getAsInt();
        return new Result(
                live,
                Optional.of(new Refusal(
                        REASON,
                        "replication factor " + specFactor
                                + " (spec.replication.factor, default 3) is held back while the cluster scales: the members keep"
                                + " --replication-factor " + live
                                + " until every data move is done (a member with another factor in the middle of a move would compute"
                                + " other replica sets). It is applied, with a rolling restart, once the scale is done; to apply nothing,"
                                + " set the factor back to " + live + ".")));
    }
}
