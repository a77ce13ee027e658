package dev.dht.node.topology;

/** The stages of a topology state, in the order a move goes through them (docs/cluster.md). */
public enum Stage {
    /** A move is known to every node that has this state; reads and writes still use the stable set only. */
    ANNOUNCED('a', 0),
    /** Reads and writes use both sets (a quorum in each); members of the stable set stream to the target. */
    JOINT('j', 1),
    /** No move: one member set. */
    STABLE('s', 2);

    /** The letter in the X-Dht-Topology header. */
    final char letter;
    /** Position within an epoch: version = 3 x epoch + rank. */
    final int rank;

    Stage(char letter, int rank) {
        this.letter = letter;
        this.rank = rank;
    }

    public String jsonName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    static Stage ofLetter(char c) {
        for (Stage s : values()) {
            if (s.letter == c) {
                return s;
            }
        }
        return null;
    }

    static Stage ofJson(String name) {
        for (Stage s : values()) {
            if (s.jsonName().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown stage '" + name + "'");
    }
}
