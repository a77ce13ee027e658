package dev.dht.bench.ring;

import java.util.Arrays;
import java.util.function.LongSupplier;

/** The spread report's timing harness: ns per operation as the fastest of many short rounds, and medians. */
public final class Timing {
    static final int ROUNDS = 21;

    private static volatile long sink;

    private Timing() {}

    /**
     * Ns per operation in the fastest of {@value #ROUNDS} timed rounds of about roundMs each, after 5 warm-up rounds:
     * on a shared machine other processes only ever add time, so the fastest round is the closest to the code's own
     * cost, and many short rounds give it more chances to run undisturbed.
     */
    public static double nsPerOp(LongSupplier pass, int opsPerPass, int roundMs) {
        long target = roundMs * 1_000_000L;
        int passes = 1;
        while (true) {
            long elapsed = timePasses(pass, passes);
            if (elapsed >= target / 4 || passes >= 1 << 24) {
                passes = (int) Math.max(1, Math.min(1L << 24, passes * target / Math.max(1, elapsed)));
                break;
            }
            passes *= 2;
        }
        for (int i = 0; i < 5; i++) {
            timePasses(pass, passes);
        }
        double best = Double.MAX_VALUE;
        for (int i = 0; i < ROUNDS; i++) {
            best = Math.min(best, (double) timePasses(pass, passes) / ((long) passes * opsPerPass));
        }
        return best;
    }

    private static long timePasses(LongSupplier pass, int passes) {
        long acc = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < passes; i++) {
            acc += pass.getAsLong();
        }
        long elapsed = System.nanoTime() - t0;
        sink += acc;
        return elapsed;
    }

    /** Median of the ms each of 7 calls of build takes. */
    public static double medianBuildMs(Runnable build) {
        double[] ms = new double[7];
        for (int i = 0; i < ms.length; i++) {
            long t0 = System.nanoTime();
            build.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        return median(ms);
    }

    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
