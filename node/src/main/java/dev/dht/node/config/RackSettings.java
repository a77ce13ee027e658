package dev.dht.node.config;

/**
 * The rack this member declares (docs/cluster.md, "Racks"): on Kubernetes the pod's own label, through the downward
 * API. The member list places the members; the declaration is checked against it, and against the rack the member
 * last ran in (kept in its data directory), so that a member never changes rack by accident.
 *
 * @param declared     {@code --rack}, or null when not given
 * @param acceptChange {@code --accept-rack-change}: start even if the rack differs from the one the data directory
 *                     was last run in (the member is being moved between racks on purpose)
 */
public record RackSettings(String declared, boolean acceptChange) {
    public static final RackSettings NONE = new RackSettings(null, false);

    public RackSettings {
        if (declared != null) {
            ClusterMembers.checkRack(declared);
        }
    }
}
