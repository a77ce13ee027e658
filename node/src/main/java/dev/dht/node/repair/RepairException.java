package dev.dht.node.repair;

/** A member did not take part in a repair step (down, overloaded, on another topology): the step is not done. */
public final class RepairException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String member;

    RepairException(String member, String reason) {
        super(member + ": " + reason, null, false, false);
        this.member = member;
    }

    public String member() {
        return member;
    }
}
