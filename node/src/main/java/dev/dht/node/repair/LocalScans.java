package dev.dht.node.repair;

import java.util.function.Supplier;

/** Where a round's scans of the local store run: {@link BackgroundScans} for scheduled rounds, or inline. */
interface LocalScans {
    /** Runs the scan, and returns what it found. */
    <T> T run(Supplier<T> scan) throws RepairException;

    /** On the calling thread (a rebuild: the node does not serve reads while it runs). */
    LocalScans INLINE = new LocalScans() {
        @Override
        public <T> T run(Supplier<T> scan) {
            return scan.get();
        }
    };
}
