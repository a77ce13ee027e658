package dev.dht.node.replication;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.Membership;
import dev.dht.node.ring.Ring;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ring of the current member set, rebuilt whenever membership changes (the cluster file was edited). Requests
 * read one immutable {@link View} and use it throughout, so a change mid-request cannot mix two rings.
 */
public final class Topology {
    private static final Logger log = LoggerFactory.getLogger(Topology.class);

    /**
     * @param ring      placement over the members
     * @param selfIndex this node's index in the ring, or -1 if it is not a member (it then only coordinates)
     */
    public record View(Ring ring, int selfIndex) {
        public String member(int index) {
            return ring.member(index);
        }
    }

    private final String self;
    private volatile View view;

    public Topology(Membership membership) {
        this.self = membership.self();
        this.view = build(membership.current());
        membership.subscribe(members -> {
            view = build(members);
            log.info("ring rebuilt for {} members: {}", members.size(), members);
        });
    }

    private View build(ClusterMembers members) {
        Ring ring = new Ring(members.urls());
        return new View(ring, ring.indexOf(self));
    }

    public View view() {
        return view;
    }

    public String self() {
        return self;
    }
}
