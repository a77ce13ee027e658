package dev.dht.node.natives;

import dev.dht.node.threads.DaemonThreads;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the node's background threads (a backup's hashing and uploads, repair's scans of the store) under Linux's
 * {@code SCHED_IDLE} policy, at nice 19 as well: they still take every idle cycle, but a request thread that wakes up
 * preempts them at once.
 *
 * <p>Nice 19 alone does not give that. Under the kernel's EEVDF scheduler (6.6 and newer) a waking nice-0 thread may
 * wait for a nice-19 thread's time slice to end: on 2 vCPUs a nice-19 {@code sha256sum} loop raised a 5000 req/s
 * load's p50 from 0.6 to 0.77 ms and its p99 by 1.5-2x, where the same loop under {@code SCHED_IDLE} left p50 where
 * it was (docs/operations.md, "Measured cost"). Whatever has spare CPU still goes to these threads; a node saturated
 * by clients starves them, as nice 19 nearly did.
 *
 * <p>{@code sched_setscheduler(tid, SCHED_IDLE, {0})} and {@code setpriority(PRIO_PROCESS, tid, 19)} through the
 * foreign function API, looked up at run time (final since JDK 22; the node is built for 21). A thread may always
 * lower itself, so neither needs a capability. Elsewhere, or on JDK 21, the threads keep the normal priority and the
 * node says so once.
 */
public final class BackgroundPriority {
    private static final Logger log = LoggerFactory.getLogger(BackgroundPriority.class);
    static final int NICE = 19;
    /** Linux's SCHED_IDLE policy number (sched.h). */
    static final int SCHED_IDLE = 5;

    private static final int PRIO_PROCESS = 0;
    private static final MethodHandle SETPRIORITY = downcall("setpriority", false);
    private static final MethodHandle SCHED_SETSCHEDULER = downcall("sched_setscheduler", true);
    /** A zeroed struct sched_param (its one int, the priority, must be 0 for SCHED_IDLE), or null. */
    private static final Object ZERO_PARAM = SCHED_SETSCHEDULER == null ? null : zeroParam();

    private static volatile boolean told;
    private static volatile boolean toldNiceOnly;

    private BackgroundPriority() {}

    /** Whether threads can be lowered here (Linux, JDK 22 or newer). */
    public static boolean available() {
        return SETPRIORITY != null;
    }

    /** Lowers the calling thread; false (nothing changed) where that is not available. */
    public static boolean lowerCurrentThread() {
        Integer tid = currentTid();
        return tid != null && lower(tid);
    }

    /** Daemon threads named name (with -N after it when numbered) that lower themselves before they run. */
    public static java.util.concurrent.ThreadFactory threadFactory(String name, boolean numbered) {
        java.util.concurrent.ThreadFactory daemons = DaemonThreads.factory(name, numbered);
        return r -> daemons.newThread(() -> {
            lowerCurrentThread();
            r.run();
        });
    }

    private static boolean lower(int tid) {
        if (SETPRIORITY == null) {
            unavailable();
            return false;
        }
        boolean idle = false;
        if (SCHED_SETSCHEDULER != null && ZERO_PARAM != null) {
            try {
                idle = (int) SCHED_SETSCHEDULER.invokeWithArguments(tid, SCHED_IDLE, ZERO_PARAM) == 0;
            } catch (Throwable e) {
                log.debug("sched_setscheduler({}, SCHED_IDLE) failed: {}", tid, e.toString());
            }
        }
        boolean niced;
        try {
            niced = (int) SETPRIORITY.invokeWithArguments(PRIO_PROCESS, tid, NICE) == 0;
        } catch (Throwable e) {
            log.debug("setpriority({}) failed: {}", tid, e.toString());
            niced = false;
        }
        if (!idle && niced && !toldNiceOnly) {
            toldNiceOnly = true;
            log.info("background threads (backups, repair scans) run at nice 19 but not under SCHED_IDLE here: the live"
                    + " load's latency may rise while they run");
        }
        return idle || niced;
    }

    /** The kernel's id of the calling thread (/proc/thread-self names it), or null. */
    static Integer currentTid() {
        try {
            Path link = Files.readSymbolicLink(Path.of("/proc/thread-self")); // "<pid>/task/<tid>"
            return Integer.parseInt(link.getFileName().toString());
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    private static void unavailable() {
        if (!told) {
            told = true;
            log.info(
                    "background threads (backups, repair scans) run at the normal CPU priority: lowering them needs"
                            + " Linux and a JDK 22 or newer (this is {} {})",
                    System.getProperty("os.name"),
                    Runtime.version());
        }
    }

    /**
     * int name(int, int, int) or, with pointerLast, int name(int, int, void*) as a method handle, or null where the
     * foreign function API cannot give it.
     */
    private static MethodHandle downcall(String name, boolean pointerLast) {
        if (!System.getProperty("os.name", "")
                        .toLowerCase(java.util.Locale.ROOT)
                        .contains("linux")
                || Runtime.version().feature() < 22) {
            return null;
        }
        try {
            Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
            Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");
            Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
            Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
            Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
            Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
            Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
            Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
            Optional<?> symbol = (Optional<?>) Class.forName("java.lang.foreign.SymbolLookup")
                    .getMethod("find", String.class)
                    .invoke(lookup, name);
            if (symbol.isEmpty()) {
                return null;
            }
            Object javaInt = valueLayout.getField("JAVA_INT").get(null);
            Object arguments = Array.newInstance(layoutClass, 3);
            for (int i = 0; i < 3; i++) {
                Array.set(arguments, i, javaInt);
            }
            if (pointerLast) {
                Array.set(arguments, 2, valueLayout.getField("ADDRESS").get(null));
            }
            Object descriptor = descriptorClass
                    .getMethod("of", layoutClass, arguments.getClass())
                    .invoke(null, javaInt, arguments);
            Object noOptions = Array.newInstance(optionClass, 0);
            return (MethodHandle) linkerClass
                    .getMethod("downcallHandle", segmentClass, descriptorClass, noOptions.getClass())
                    .invoke(linker, symbol.get(), descriptor, noOptions);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            log.debug("no {} through the foreign function API: {}", name, e.toString());
            return null;
        }
    }

    /** Four zeroed bytes that live as long as the process (Arena.global().allocate(4)), or null. */
    private static Object zeroParam() {
        try {
            Object arena =
                    Class.forName("java.lang.foreign.Arena").getMethod("global").invoke(null);
            return Class.forName("java.lang.foreign.SegmentAllocator")
                    .getMethod("allocate", long.class)
                    .invoke(arena, 4L);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            log.debug("no memory for a sched_param: {}", e.toString());
            return null;
        }
    }
}
