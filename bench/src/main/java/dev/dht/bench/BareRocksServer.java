package dev.dht.bench;

import dev.dht.node.natives.NativeLibraries;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import one.nio.http.HttpServer;
import one.nio.http.HttpServerConfig;
import one.nio.http.HttpSession;
import one.nio.http.Request;
import one.nio.http.Response;
import one.nio.server.AcceptorConfig;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * The storage reference of the benchmarks: one-nio and RocksDB doing nothing else. {@code PUT /v0/entity?id=K} is
 * one {@code RocksDB.put} of the body (WAL on, no sync: the node's durability) answered 201, {@code GET} one
 * {@code RocksDB.get} answered 200 with the value or 404, both on the selector thread: no timestamp, no
 * last-write-wins check, no grouping, no replication, no metrics. The node's throughput is reported as a fraction of
 * this server's (the cost of what the node adds over storing bytes), as of {@link BareServer}'s (the HTTP ceiling).
 * RocksDB's own defaults, with a block cache as large as the node's in the benchmark so that reads compare alike.
 *
 * <p>Usage: java -cp dht-bench.jar:dht-node.jar dev.dht.bench.BareRocksServer PORT DATA_DIR [BLOCK_CACHE_MIB]
 */
public final class BareRocksServer extends HttpServer {
    private final RocksDB db;
    private final WriteOptions write;

    private BareRocksServer(HttpServerConfig config, RocksDB db, WriteOptions write) throws IOException {
        super(config);
        this.db = db;
        this.write = write;
    }

    @Override
    public void handleRequest(Request request, HttpSession session) throws IOException {
        String id = request.getParameter("id=");
        if (id == null || id.isEmpty() || !request.getPath().equals("/v0/entity")) {
            session.sendResponse(new Response(Response.BAD_REQUEST, Response.EMPTY));
            return;
        }
        byte[] key = id.getBytes(StandardCharsets.UTF_8);
        try {
            switch (request.getMethod()) {
                case Request.METHOD_PUT -> {
                    db.put(write, key, request.getBody() == null ? Response.EMPTY : request.getBody());
                    session.sendResponse(new Response(Response.CREATED, Response.EMPTY));
                }
                case Request.METHOD_GET -> {
                    byte[] value = db.get(key);
                    session.sendResponse(
                            value == null
                                    ? new Response(Response.NOT_FOUND, Response.EMPTY)
                                    : new Response(Response.OK, value));
                }
                default -> session.sendResponse(new Response(Response.METHOD_NOT_ALLOWED, Response.EMPTY));
            }
        } catch (RocksDBException e) {
            session.sendResponse(new Response(Response.INTERNAL_ERROR, Response.EMPTY));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: BareRocksServer PORT DATA_DIR [BLOCK_CACHE_MIB]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]);
        long cacheBytes = (args.length > 2 ? Long.parseLong(args[2]) : 1024) << 20;
        NativeLibraries.loadRocksDb(); // the node's loader: the library unpacked once into the cache
        Files.createDirectories(dir);
        LRUCache cache = new LRUCache(cacheBytes);
        Options options = new Options()
                .setCreateIfMissing(true)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
        WriteOptions write = new WriteOptions().setSync(false).setDisableWAL(false);
        RocksDB db = RocksDB.open(options, dir.toString());

        AcceptorConfig acceptor = new AcceptorConfig();
        acceptor.address = "0.0.0.0";
        acceptor.port = port;
        acceptor.backlog = 1024;
        HttpServerConfig config = new HttpServerConfig();
        config.acceptors = new AcceptorConfig[] {acceptor};
        config.selectors = Runtime.getRuntime().availableProcessors();
        config.keepAlive = 30_000;
        config.closeSessions = true;
        BareRocksServer server = new BareRocksServer(config, db, write);
        server.start();
        System.err.println("bare one-nio + RocksDB server on port " + port + " over " + dir);
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop();
            db.close();
            forever.countDown();
        }));
        forever.await();
    }
}
