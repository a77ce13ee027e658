package dev.dht.node.profiling;

import dev.dht.node.config.Units;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.BadRequestException;
import dev.dht.node.http.QueryParams;
import dev.dht.node.http.RequestParser;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.natives.NativeLibraries;
import dev.dht.node.threads.DaemonThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import one.nio.http.Request;
import one.nio.http.Response;
import one.profiler.AsyncProfiler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET /v0/admin/profile?event=cpu|alloc|lock|wall&duration=30s[&interval=1ms][&format=html|collapsed]
 * (duration 100ms..10m, interval 1ms..1s; an admin operation: loopback or an admin token): runs
 * async-profiler inside this JVM for the duration and answers with its HTML flamegraph (or collapsed stacks, one
 * "frame;frame;... count" line per stack, for scripts); a copy goes to the profile directory if one is set.
 * One capture at a time (a second request gets 409). No thread waits for the capture: a timer stops it and
 * answers, which is also the shape the cluster coordinator's callbacks will have.
 */
public final class ProfileHandler implements AdminHandler, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ProfileHandler.class);
    private static final Set<String> EVENTS = Set.of("cpu", "alloc", "lock", "wall");
    private static final Duration MIN = Duration.ofMillis(100);
    private static final Duration MAX = Duration.ofMinutes(10);
    /**
     * Sampling interval bounds (cpu, wall): below 1 ms the profiler's own signal handling starts to take the CPU
     * it measures, and an interval of a few nanoseconds stalled the node; above 1 s a capture says nothing.
     */
    static final Duration MIN_INTERVAL = Duration.ofMillis(1);

    static final Duration MAX_INTERVAL = Duration.ofSeconds(1);
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private final Path profileDir;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("dht-profiler", false));
    private AsyncProfiler profiler;
    private String loadError;

    public ProfileHandler(Path profileDir) {
        this.profileDir = profileDir;
    }

    @Override
    public void handle(Request request, Responder responder) throws BadRequestException {
        String query = RequestParser.rawQuery(request);
        String event = orDefault(QueryParams.get(query, "event"), "cpu");
        if (!EVENTS.contains(event)) {
            throw new BadRequestException("event must be one of cpu, alloc, lock, wall; got '" + event + "'");
        }
        Duration duration = duration(QueryParams.get(query, "duration"), "duration", Duration.ofSeconds(30));
        if (duration.compareTo(MIN) < 0 || duration.compareTo(MAX) > 0) {
            throw new BadRequestException("duration must be between 100ms and 10m");
        }
        String format = orDefault(QueryParams.get(query, "format"), "html");
        if (!format.equals("html") && !format.equals("collapsed")) {
            throw new BadRequestException("format must be html or collapsed; got '" + format + "'");
        }
        String intervalParam = QueryParams.get(query, "interval");
        Duration interval = intervalParam == null ? null : duration(intervalParam, "interval", null);
        if (interval != null && (interval.compareTo(MIN_INTERVAL) < 0 || interval.compareTo(MAX_INTERVAL) > 0)) {
            throw new BadRequestException("interval must be between 1ms and 1s");
        }

        AsyncProfiler ap = profiler();
        if (ap == null) {
            responder.fail(Responses.SERVICE_UNAVAILABLE, "profiler unavailable: " + loadError);
            return;
        }
        if (!busy.compareAndSet(false, true)) {
            responder.fail(Responses.CONFLICT, "a profile is already being captured; try again when it ends");
            return;
        }
        try {
            String start = "start,event=" + event;
            if (interval != null && (event.equals("cpu") || event.equals("wall"))) {
                start += ",interval=" + interval.toNanos();
            }
            ap.execute(start);
        } catch (IOException | IllegalStateException | IllegalArgumentException e) {
            busy.set(false);
            responder.fail(Responses.CONFLICT, "profiler did not start: " + e.getMessage());
            return;
        }
        log.info("profiling {} for {}", event, Units.formatDuration(duration));
        timer.schedule(() -> finish(ap, event, format, responder), duration.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void finish(AsyncProfiler ap, String event, String format, Responder responder) {
        Response response = null;
        String failure = null;
        Path tmp = null;
        String extension = format.equals("html") ? ".html" : ".txt";
        try {
            tmp = Files.createTempFile("dht-profile-" + event + "-", extension);
            // async-profiler's output names: "flamegraph" is the HTML one
            String output = format.equals("html") ? "flamegraph" : "collapsed";
            ap.execute("stop,file=" + tmp + "," + output + ",title=dht node " + event + " profile");
            byte[] html = Files.readAllBytes(tmp);
            if (profileDir != null) {
                Files.createDirectories(profileDir);
                Path target =
                        profileDir.resolve(event + "-" + LocalDateTime.now().format(STAMP) + extension);
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                log.info("profile written to {}", target);
            } else {
                Files.delete(tmp);
            }
            tmp = null; // gone before the answer: a process killed right after it leaves no file behind
            response = new Response(Response.OK, html);
            response.addHeader(
                    format.equals("html")
                            ? "Content-Type: text/html; charset=utf-8"
                            : "Content-Type: text/plain; charset=utf-8");
        } catch (IOException | RuntimeException e) {
            log.warn("profile failed: {}", e.toString());
            failure = "profile failed: " + e.getMessage();
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    log.debug("could not delete {}: {}", tmp, e.toString());
                }
            }
        }
        // Free before answering: a client that asks for the next capture as soon as it has this one must not get 409.
        busy.set(false);
        if (response != null) {
            responder.send(response);
        } else {
            responder.fail(Responses.INTERNAL_ERROR, failure);
        }
    }

    /** Loads the native profiler on first use; remembers why it could not. */
    private synchronized AsyncProfiler profiler() {
        if (profiler == null && loadError == null) {
            try {
                // From the native directory or the cache: AsyncProfiler.getInstance() would unpack into a temp file.
                profiler = AsyncProfiler.getInstance(
                        NativeLibraries.asyncProfiler().map(Path::toString).orElse(null));
            } catch (Throwable e) { // UnsatisfiedLinkError on a platform the jar has no library for
                loadError = e.toString();
                log.warn("async-profiler unavailable: {}", loadError);
            }
        }
        return profiler;
    }

    /** 1 while a capture runs (for /metrics). */
    public boolean running() {
        return busy.get();
    }

    private static String orDefault(String v, String dflt) {
        return v == null || v.isEmpty() ? dflt : v;
    }

    private static Duration duration(String v, String name, Duration dflt) throws BadRequestException {
        if (v == null || v.isEmpty()) {
            return dflt;
        }
        try {
            return Units.parseDuration(v);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException(name + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
