package dev.dht.bench;

import dev.dht.node.tls.TlsConnection;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.file.Path;
import java.util.Arrays;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

/**
 * Which TLS engine for the member plane: CPU time per TLS 1.3 record (wrap, unwrap) and per request/response round
 * (both sides), in memory, for the JDK's SSLEngine (what the node runs), Conscrypt (BoringSSL) and netty-tcnative's
 * OpenSSL engine (BoringSSL). Two engines handshaken with each other with a member's EC P-256 files
 * (scripts/tls/member-certs.sh DIR), one thread, thread CPU time after a warm-up; each figure is the median of REPS
 * runs. "node" rounds go through the node's own {@link TlsConnection} over an in-memory channel pair. Measured for
 * docs/security.md ("TLS on one code path").
 *
 * <p>Conscrypt and netty are compile-only dependencies of this module (not in dht-bench.jar); the class path below
 * has them. heap|direct: the buffers handed to the engine (native engines copy heap buffers).
 * <pre>
 * scripts/tls/member-certs.sh /tmp/member-tls
 * scripts/mvn -q -pl bench -am package -DskipTests dependency:build-classpath -Dmdep.outputFile=/tmp/bench.cp
 * java -cp bench/target/dht-bench.jar:$(cat /tmp/bench.cp) dev.dht.bench.TlsEngineBench \
 *   jdk|conscrypt|netty heap|direct /tmp/member-tls [SECONDS] [REPS]
 * </pre>
 */
public final class TlsEngineBench {
    private static final java.lang.management.ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    private static final int[] SIZES = {150, 250, 300, 4096, 16000}; // 16000: one full record for every engine
    private static final int[][] ROUNDS = {{200, 250}, {250, 60}, {200, 4096}}; // GET, PUT, GET of 4 KiB
    /** Room for any engine's largest record (the JDK wants a whole packet buffer free before it wraps). */
    private static final int PACKET = 17 * 1024;

    private TlsEngineBench() {}

    /** Makes engines of one provider that trust each other. */
    interface Engines {
        SSLEngine client() throws Exception;

        SSLEngine server() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: TlsEngineBench jdk|conscrypt|netty heap|direct CERT_DIR [SECONDS] [REPS]");
            System.exit(2);
        }
        String provider = args[0];
        boolean direct = args[1].equals("direct");
        double seconds = args.length > 3 ? Double.parseDouble(args[3]) : 0.7;
        int reps = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        Engines engines = TlsBenchEngines.of(provider, Path.of(args[2]));
        SSLEngine c = engines.client();
        SSLEngine s = engines.server();
        handshake(c, s, direct);
        System.out.printf(
                "# %s %s: %s %s, %s%n",
                provider,
                args[1],
                c.getSession().getProtocol(),
                c.getSession().getCipherSuite(),
                c.getClass().getName());
        for (int n : SIZES) {
            records(c, s, n, direct, 3 * seconds); // warm-up (here and below: the JIT's tiers take seconds)
        }
        for (int n : SIZES) {
            double[] wrap = new double[reps];
            double[] unwrap = new double[reps];
            for (int r = 0; r < reps; r++) {
                double[] x = records(c, s, n, direct, seconds);
                wrap[r] = x[0];
                unwrap[r] = x[1];
            }
            System.out.printf(
                    "%s %s record=%d wrap_ns=%.0f unwrap_ns=%.0f%n",
                    provider, args[1], n, median(wrap), median(unwrap));
        }
        var alloc = (com.sun.management.ThreadMXBean) MX;
        for (int[] p : ROUNDS) {
            rounds(c, s, p[0], p[1], direct, 3 * seconds);
            double[] t = new double[reps];
            long a0 = alloc.getCurrentThreadAllocatedBytes();
            long done = 0;
            for (int r = 0; r < reps; r++) {
                double[] x = rounds(c, s, p[0], p[1], direct, seconds);
                t[r] = x[0];
                done += (long) x[1];
            }
            System.out.printf(
                    "%s %s round=%d/%d ns=%.0f allocated_bytes=%.0f%n",
                    provider,
                    args[1],
                    p[0],
                    p[1],
                    median(t),
                    (alloc.getCurrentThreadAllocatedBytes() - a0) / (double) done);
        }
        double[] node = new double[reps];
        NodePath path = new NodePath(engines.client(), engines.server());
        path.rounds(200, 250, 5 * seconds);
        for (int r = 0; r < reps; r++) {
            node[r] = path.rounds(200, 250, seconds);
        }
        System.out.printf(
                "%s node round=200/250 ns=%.0f (TlsConnection, heap buffers as in the node)%n", provider, median(node));
        double[] hs = new double[Math.min(reps, 3)];
        for (int r = 0; r < hs.length; r++) {
            long t0 = MX.getCurrentThreadCpuTime();
            int n = 0;
            for (; MX.getCurrentThreadCpuTime() - t0 < seconds * 1e9; n++) {
                handshake(engines.client(), engines.server(), direct);
            }
            hs[r] = (MX.getCurrentThreadCpuTime() - t0) / (double) n;
        }
        System.out.printf("%s %s handshake_us=%.0f%n", provider, args[1], median(hs) / 1000);
    }

    static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private static ByteBuffer allocate(int n, boolean direct) {
        return direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
    }

    /** Batches of 32 records of n bytes: wrapped (timed), then unwrapped (timed). ns per wrap and per unwrap. */
    static double[] records(SSLEngine c, SSLEngine s, int n, boolean direct, double seconds) throws Exception {
        int batch = 32;
        ByteBuffer src = allocate(n, direct);
        ByteBuffer net = allocate(batch * (n + 512) + PACKET, direct);
        ByteBuffer app = allocate(PACKET, direct);
        long wrapNs = 0;
        long unwrapNs = 0;
        long records = 0;
        for (long start = MX.getCurrentThreadCpuTime(); MX.getCurrentThreadCpuTime() - start < seconds * 1e9; ) {
            net.clear();
            long t0 = MX.getCurrentThreadCpuTime();
            for (int i = 0; i < batch; i++) {
                src.clear();
                SSLEngineResult r = c.wrap(src, net);
                if (r.getStatus() != SSLEngineResult.Status.OK || r.bytesConsumed() != n) {
                    throw new IllegalStateException("wrap: " + r);
                }
            }
            long t1 = MX.getCurrentThreadCpuTime();
            net.flip();
            int plain = 0;
            while (net.hasRemaining()) {
                app.clear();
                SSLEngineResult r = s.unwrap(net, app);
                if (r.getStatus() != SSLEngineResult.Status.OK) {
                    throw new IllegalStateException("unwrap: " + r);
                }
                plain += r.bytesProduced();
            }
            long t2 = MX.getCurrentThreadCpuTime();
            if (plain != batch * n) {
                throw new IllegalStateException("unwrapped " + plain + " bytes of " + batch * n);
            }
            wrapNs += t1 - t0;
            unwrapNs += t2 - t1;
            records += batch;
        }
        return new double[] {wrapNs / (double) records, unwrapNs / (double) records};
    }

    /** Rounds: the client wraps a request, the server unwraps it and wraps the response, the client unwraps it. */
    static double[] rounds(SSLEngine c, SSLEngine s, int req, int resp, boolean direct, double seconds)
            throws Exception {
        ByteBuffer q = allocate(req, direct);
        ByteBuffer a = allocate(resp, direct);
        ByteBuffer c2s = allocate(req + PACKET, direct);
        ByteBuffer s2c = allocate(resp + PACKET, direct);
        ByteBuffer serverApp = allocate(req + PACKET, direct);
        ByteBuffer clientApp = allocate(resp + PACKET, direct);
        long rounds = 0;
        long start = MX.getCurrentThreadCpuTime();
        long now;
        while ((now = MX.getCurrentThreadCpuTime()) - start < seconds * 1e9) {
            for (int i = 0; i < 256; i++, rounds++) {
                q.clear();
                c2s.clear();
                c.wrap(q, c2s);
                c2s.flip();
                serverApp.clear();
                while (c2s.hasRemaining()) {
                    s.unwrap(c2s, serverApp);
                }
                a.clear();
                s2c.clear();
                s.wrap(a, s2c);
                s2c.flip();
                clientApp.clear();
                while (s2c.hasRemaining()) {
                    c.unwrap(s2c, clientApp);
                }
                if (serverApp.position() != req || clientApp.position() != resp) {
                    throw new IllegalStateException("round lost bytes: " + serverApp + " " + clientApp);
                }
            }
        }
        return new double[] {(now - start) / (double) rounds, rounds};
    }

    /** A whole handshake in memory, then what is still in flight (TLS 1.3 session tickets) delivered. */
    static void handshake(SSLEngine c, SSLEngine s, boolean direct) throws Exception {
        ByteBuffer c2s = allocate(4 * PACKET, direct);
        ByteBuffer s2c = allocate(4 * PACKET, direct);
        ByteBuffer sink = allocate(4 * PACKET, direct);
        ByteBuffer empty = allocate(0, direct);
        c.beginHandshake();
        s.beginHandshake();
        for (int i = 0; i < 200; i++) {
            if (!handshaking(c) && !handshaking(s)) {
                for (int k = 0; k < 8 && (c2s.position() > 0 || s2c.position() > 0); k++) {
                    deliver(s2c, c, sink);
                    deliver(c2s, s, sink);
                }
                if (c2s.position() > 0 || s2c.position() > 0) {
                    throw new IllegalStateException("bytes left after the handshake");
                }
                return;
            }
            step(c, empty, c2s, s2c, sink);
            step(s, empty, s2c, c2s, sink);
        }
        throw new IllegalStateException("the handshake did not finish");
    }

    private static void deliver(ByteBuffer in, SSLEngine to, ByteBuffer sink) throws Exception {
        in.flip();
        while (in.hasRemaining()) {
            sink.clear();
            if (to.unwrap(in, sink).bytesConsumed() == 0) {
                break;
            }
        }
        in.compact();
    }

    private static boolean handshaking(SSLEngine e) {
        SSLEngineResult.HandshakeStatus h = e.getHandshakeStatus();
        return h != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && h != SSLEngineResult.HandshakeStatus.FINISHED;
    }

    private static void step(SSLEngine e, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer sink)
            throws Exception {
        switch (e.getHandshakeStatus()) {
            case NEED_TASK -> {
                for (Runnable t; (t = e.getDelegatedTask()) != null; ) {
                    t.run();
                }
            }
            case NEED_WRAP -> e.wrap(empty, out);
            case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> { // one call: the engine may want a task or a wrap next
                in.flip();
                sink.clear();
                e.unwrap(in, sink);
                in.compact();
            }
            default -> {
                // done on this side
            }
        }
    }

    /** The node's TLS code path, {@link TlsConnection} on both sides, over in-memory byte streams. */
    static final class NodePath {
        private final TlsConnection client;
        private final TlsConnection server;
        private final byte[] in = new byte[1 << 16];

        NodePath(SSLEngine c, SSLEngine s) throws Exception {
            ByteBuffer c2s = ByteBuffer.allocate(1 << 20);
            ByteBuffer s2c = ByteBuffer.allocate(1 << 20);
            client = new TlsConnection(c, new Memory(s2c, c2s));
            server = new TlsConnection(s, new Memory(c2s, s2c));
            for (int i = 0; i < 100 && (client.handshaking() || server.handshaking()); i++) {
                client.write(ByteBuffer.allocate(0));
                server.read(ByteBuffer.wrap(in));
                client.read(ByteBuffer.wrap(in));
            }
            server.read(ByteBuffer.wrap(in));
            client.read(ByteBuffer.wrap(in));
        }

        double rounds(int req, int resp, double seconds) throws Exception {
            byte[] q = new byte[req];
            byte[] a = new byte[resp];
            long n = 0;
            long start = MX.getCurrentThreadCpuTime();
            long now;
            while ((now = MX.getCurrentThreadCpuTime()) - start < seconds * 1e9) {
                for (int i = 0; i < 256; i++, n++) {
                    // byte arrays wrapped per call, as TlsSocket and PeerConnection do
                    client.write(ByteBuffer.wrap(q));
                    int got = server.read(ByteBuffer.wrap(in));
                    server.write(ByteBuffer.wrap(a));
                    if (got != req || client.read(ByteBuffer.wrap(in)) != resp) {
                        throw new IllegalStateException("round lost bytes");
                    }
                }
            }
            return (now - start) / (double) n;
        }
    }

    /** One end of an in-memory connection: reads from one buffer, writes to the other (both in write mode). */
    private record Memory(ByteBuffer in, ByteBuffer out) implements ByteChannel {
        @Override
        public int read(ByteBuffer dst) {
            in.flip();
            int n = Math.min(dst.remaining(), in.remaining());
            dst.put(dst.position(), in, in.position(), n).position(dst.position() + n);
            in.position(in.position() + n).compact();
            return n;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            out.put(src);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }
}
