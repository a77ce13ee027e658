package dev.dht.node.natives;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.CRC32;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the node's native libraries (RocksDB, async-profiler) from files written once, not at every start, and
 * keeps one-nio on JDK NIO sockets. Left alone, RocksDB unpacks its 15 MB library into java.io.tmpdir at each start
 * (removed only on a normal JVM exit, which the node's halt after a graceful stop skips, and never after a kill),
 * and async-profiler unpacks into a temp file.
 *
 * <p>Two sources. A <b>provided directory</b> ({@code --native-dir}, {@code DHT_NATIVE_DIR}; the image's
 * /opt/dht/native): read only, nothing is written; it holds the files {@link #main} writes (scripts/images.sh runs
 * it when it builds the image). Otherwise the <b>cache</b>, {@code $DHT_CACHE_DIR/native} (default
 * {@code ${XDG_CACHE_HOME:-~/.cache}/dht/native}): each library in a directory named by the CRC-32 of its content,
 * so a new library version gets a new directory; extracted once, written to a temporary file in that directory and
 * renamed into place, so concurrent starts never load a partial file. If the cache cannot be written, the libraries
 * load their own way (into java.io.tmpdir) and a warning says so.
 *
 * <p>Call {@link #use} (NodeMain does) before anything touches RocksDB or one-nio; without it the cache is used.
 */
public final class NativeLibraries {
    private static final Logger log = LoggerFactory.getLogger(NativeLibraries.class);

    private static Path provided; // null: the cache
    private static boolean rocksDbLoaded;
    private static boolean oneNioDecided;
    private static Optional<Path> asyncProfiler;

    private NativeLibraries() {}

    /** Where the libraries come from: a directory that holds them (nothing is written), or null for the cache. */
    public static synchronized void use(Path providedDir) {
        if (rocksDbLoaded) {
            log.warn("native libraries already loaded; --native-dir {} applies from the next start", providedDir);
        }
        provided = providedDir;
    }

    /** RocksDB's JNI library; call before any org.rocksdb class is used (their static blocks load it otherwise). */
    public static synchronized void loadRocksDb() {
        if (rocksDbLoaded) {
            return;
        }
        Optional<Path> dir = directoryOf(Library.ROCKSDB);
        if (dir.isPresent()) {
            // Loads dir/<Library.ROCKSDB.fileName()> and marks the library loaded, so RocksDB never unpacks its own.
            RocksDB.loadLibrary(List.of(dir.get().toString()));
        } else {
            RocksDB.loadLibrary();
        }
        rocksDbLoaded = true;
    }

    /**
     * Keeps one-nio on JDK NIO sockets: its native socket library is never loaded (docs/security.md, "TLS"). The
     * member port's TLS runs on the JDK's SSLEngine over JDK sockets (one-nio serves TLS only through its native
     * library, and its JDK fallback ignores TLS on the server side); with the native library loaded, accepted
     * sockets would be native ones that the JDK cannot wrap. So there is one socket path, the one every test
     * runs, on every platform; the native sockets measured 1.03x the JDK's throughput, within the spread
     * (docs/benchmarks/pod.md). one-nio decides once, in NativeLibrary's static initializer, from os.name: it is
     * something else while that class initializes. Single-threaded at startup; idempotent.
     *
     * @return whether one-nio is on JDK sockets (false only if something loaded its native library before)
     */
    public static synchronized boolean keepOneNioOnJdkSockets() {
        if (!oneNioDecided) {
            oneNioDecided = true;
            String os = System.getProperty("os.name");
            try {
                System.setProperty("os.name", "dht: one-nio native sockets off");
                Class.forName("one.nio.os.NativeLibrary", true, NativeLibraries.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("one-nio is not on the class path", e);
            } finally {
                System.setProperty("os.name", os);
            }
        }
        return !one.nio.os.NativeLibrary.IS_SUPPORTED;
    }

    /** async-profiler's library for {@code AsyncProfiler.getInstance(path)}, or empty (it then unpacks its own). */
    public static synchronized Optional<Path> asyncProfiler() {
        if (asyncProfiler == null) {
            asyncProfiler = Library.ASYNC_PROFILER.resource() == null
                    ? Optional.empty()
                    : directoryOf(Library.ASYNC_PROFILER).map(d -> d.resolve(Library.ASYNC_PROFILER.fileName()));
        }
        return asyncProfiler;
    }

    /** The directory that holds the library's file: the provided one, or its cache directory (extracted if needed). */
    private static Optional<Path> directoryOf(Library library) {
        if (provided != null) {
            if (!Files.isRegularFile(provided.resolve(library.fileName()))) {
                log.warn(
                        "{} is missing from the native directory {} (write them with: java -cp dht-node.jar {} DIR)",
                        library.fileName(),
                        provided,
                        NativeLibraries.class.getName());
            }
            return Optional.of(provided);
        }
        try {
            return Optional.of(extractToCache(library));
        } catch (IOException | UncheckedIOException e) {
            log.warn(
                    "cannot use the native library cache ({}): {} unpacks into java.io.tmpdir instead; set "
                            + "--native-dir or DHT_CACHE_DIR to a writable directory",
                    e.getMessage(),
                    library.fileName());
            return Optional.empty();
        }
    }

    static Path cacheRoot() {
        String dht = System.getenv("DHT_CACHE_DIR");
        if (dht != null && !dht.isEmpty()) {
            return Path.of(dht, "native");
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("dht").resolve("native");
    }

    private static Path extractToCache(Library library) throws IOException {
        URL resource = library.resource();
        if (resource == null) {
            throw new IOException("no " + library.resourceName() + " in the class path for this platform");
        }
        Entry entry = Entry.of(resource);
        Path dir = cacheRoot().resolve(library.id + "-" + hex(entry.crc));
        Path file = dir.resolve(library.fileName());
        if (!Files.isRegularFile(file) || Files.size(file) != entry.size) {
            Files.createDirectories(dir);
            writeAtomically(resource, file);
            log.info("unpacked {} into {} (once per library version)", library.resourceName(), dir);
        }
        return dir;
    }

    /** Written under a temporary name in the same directory, then renamed: a reader sees no file or all of it. */
    private static void writeAtomically(URL resource, Path file) throws IOException {
        Path tmp = Files.createTempFile(file.getParent(), file.getFileName() + ".", ".part");
        try {
            try (InputStream in = resource.openStream()) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Writes every library of this platform into a directory, under the names a node given that directory as
     * {@code --native-dir} loads (scripts/images.sh runs this for the image's /opt/dht/native).
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java -cp dht-node.jar " + NativeLibraries.class.getName() + " DIR");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        for (Library library : Library.values()) {
            URL resource = library.resource();
            if (resource == null) {
                System.err.println("skipped " + library.resourceName() + ": not in the jar for this platform");
                continue;
            }
            writeAtomically(resource, dir.resolve(library.fileName()));
            System.out.println(dir.resolve(library.fileName()));
        }
    }

    static String hex(long crc) {
        return String.format("%08x", (int) crc);
    }

    /** The libraries: where each is in the jar, and the file name its loader looks for in a directory. */
    enum Library {
        ROCKSDB("rocksdbjni"),
        ASYNC_PROFILER("asyncprofiler");

        final String id;

        Library(String id) {
            this.id = id;
        }

        String resourceName() {
            return switch (this) {
                // What RocksDB's own loader unpacks (librocksdbjni-linux64.so on x86_64 glibc).
                case ROCKSDB -> Environment.getJniLibraryFileName("rocksdb");
                case ASYNC_PROFILER -> asyncProfilerPlatform() + "/libasyncProfiler.so";
            };
        }

        String fileName() {
            return switch (this) {
                // RocksDB.loadLibrary(List) 9.10.0 loads <dir>/Environment.getJniLibraryFileName("rocksdbjni"),
                // i.e. librocksdbjnijni-linux64.so ("jni" twice): the file must have that name.
                case ROCKSDB -> Environment.getJniLibraryFileName("rocksdbjni");
                case ASYNC_PROFILER -> "libasyncProfiler.so";
            };
        }

        URL resource() {
            return NativeLibraries.class.getClassLoader().getResource(resourceName());
        }

        private static String asyncProfilerPlatform() {
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            String arch = System.getProperty("os.arch", "");
            if (os.contains("mac")) {
                return "macos";
            }
            return arch.equals("aarch64") || arch.equals("arm64") ? "linux-arm64" : "linux-x64";
        }
    }

    /** Size and CRC-32 of a class path resource: from the jar's directory when it is in a jar, else computed. */
    record Entry(long size, long crc) {
        static Entry of(URL resource) throws IOException {
            if (resource.openConnection() instanceof JarURLConnection jar) {
                var entry = jar.getJarEntry();
                if (entry.getCrc() >= 0 && entry.getSize() >= 0) {
                    return new Entry(entry.getSize(), entry.getCrc());
                }
            }
            CRC32 crc = new CRC32();
            long size = 0;
            try (InputStream in = resource.openStream()) {
                byte[] buffer = new byte[1 << 16];
                for (int n; (n = in.read(buffer)) > 0; size += n) {
                    crc.update(buffer, 0, n);
                }
            }
            return new Entry(size, crc.getValue());
        }
    }
}
