package dev.dht.node.config;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The current member set and who wants to hear about changes (the ring will subscribe in the cluster issue).
 * Reads are a volatile load; updates come from the cluster-file watcher.
 */
public final class Membership {
    private final String self;
    private final AtomicReference<ClusterMembers> current;
    private final AtomicLong changes = new AtomicLong();
    private final List<Consumer<ClusterMembers>> listeners = new CopyOnWriteArrayList<>();

    public Membership(String self, ClusterMembers initial) {
        this.self = self;
        this.current = new AtomicReference<>(initial);
    }

    public String self() {
        return self;
    }

    public ClusterMembers current() {
        return current.get();
    }

    /** How many times the member set changed since start. */
    public long changes() {
        return changes.get();
    }

    public void subscribe(Consumer<ClusterMembers> listener) {
        listeners.add(listener);
    }

    /** Installs a new member set; listeners run on the caller's thread. Returns false if nothing changed. */
    public boolean update(ClusterMembers next) {
        ClusterMembers previous = current.getAndSet(next);
        if (previous.equals(next)) {
            return false;
        }
        changes.incrementAndGet();
        for (Consumer<ClusterMembers> listener : listeners) {
            listener.accept(next);
        }
        return true;
    }
}
