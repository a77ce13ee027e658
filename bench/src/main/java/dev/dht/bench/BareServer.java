package dev.dht.bench;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import one.nio.http.HttpServer;
import one.nio.http.HttpServerConfig;
import one.nio.http.HttpSession;
import one.nio.http.Request;
import one.nio.http.Response;
import one.nio.server.AcceptorConfig;

/**
 * The HTTP ceiling of this machine for `make bench-node`: one-nio with the node's acceptor and selector settings,
 * answering every request 200 with an empty body on the selector thread (no pool, no storage). The node's
 * throughput is reported as a fraction of this server's, measured in the same run with the same load.
 *
 * <p>Usage: java -cp dht-bench.jar:dht-node.jar dev.dht.bench.BareServer PORT [SELECTORS]
 */
public final class BareServer extends HttpServer {

    private BareServer(HttpServerConfig config) throws IOException {
        super(config);
    }

    @Override
    public void handleRequest(Request request, HttpSession session) throws IOException {
        session.sendResponse(new Response(Response.OK, Response.EMPTY));
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: BareServer PORT [SELECTORS]");
            System.exit(2);
        }
        AcceptorConfig acceptor = new AcceptorConfig();
        acceptor.address = "0.0.0.0";
        acceptor.port = Integer.parseInt(args[0]);
        acceptor.reusePort = true;
        acceptor.backlog = 1024;
        HttpServerConfig config = new HttpServerConfig();
        config.acceptors = new AcceptorConfig[] {acceptor};
        config.selectors = args.length > 1
                ? Integer.parseInt(args[1])
                : Runtime.getRuntime().availableProcessors();
        config.keepAlive = 30_000;
        config.closeSessions = true;
        BareServer server = new BareServer(config);
        server.start();
        System.err.println("bare one-nio server on port " + acceptor.port + " with " + config.selectors + " selectors");
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop();
            forever.countDown();
        }));
        forever.await();
    }
}
