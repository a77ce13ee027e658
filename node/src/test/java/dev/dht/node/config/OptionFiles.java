package dev.dht.node.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the option table ({@link NodeOption}) generates for the rest of the repository: the operator's constants (the
 * operator does not depend on the node's jar, and the CRD's {@code @Default} needs compile-time constants) and
 * docs/node-options.md. {@code make crds} (scripts/sync-crds.sh) runs main to write them; OptionFilesTest only
 * compares, and fails on a stale copy.
 */
public final class OptionFiles {
    static final String OPERATOR_CONSTANTS = "operator/src/main/java/dev/dht/operator/api/v1alpha1/NodeOptions.java";
    static final String DOCS = "docs/node-options.md";

    private OptionFiles() {}

    /** Repository-relative path -> content. */
    public static Map<String, String> expected() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(OPERATOR_CONSTANTS, operatorConstants());
        files.put(DOCS, docs());
        return files;
    }

    public static void main(String[] args) throws IOException {
        for (Map.Entry<String, String> e : expected().entrySet()) {
            Files.writeString(root().resolve(e.getKey()), e.getValue());
        }
    }

    static Path root() {
        return Path.of(System.getProperty("dht.root", "..")).toAbsolutePath().normalize();
    }

    static String operatorConstants() {
        StringBuilder env = new StringBuilder();
        StringBuilder flag = new StringBuilder();
        StringBuilder dflt = new StringBuilder();
        for (NodeOption o : NodeOption.values()) {
            if (o.testOnly()) {
                continue; // a test hook: nothing the operator may set
            }
            env.append("    public static final String ")
                    .append(o.name())
                    .append(" = \"")
                    .append(o.env())
                    .append("\";\n");
            flag.append("    public static final String ")
                    .append(o.name())
                    .append(" = \"")
                    .append(o.flag())
                    .append("\";\n");
            if (o.defaultValue() != null) {
                String type = switch (o.type().kind()) {
                    case INT -> "int";
                    case BOOL -> "boolean";
                    default -> "String";
                };
                String value = type.equals("String") ? "\"" + o.defaultValue() + "\"" : o.defaultValue();
                dflt.append("    public static final ")
                        .append(type)
                        .append(' ')
                        .append(o.name())
                        .append(" = ")
                        .append(value)
                        .append(";\n");
            }
        }
        return """
                // GENERATED from the node's option table (dev.dht.node.config.NodeOption) by make crds: do not edit.
                package dev.dht.operator.api.v1alpha1;

                /**
                 * The node's options as the node declares them: the environment variable of each, and the default of
                 * those with a fixed one. Where the operator or the CRD default to what the node does, they use these;
                 * the node's OptionFilesTest fails when this file is stale.
                 */
                public final class NodeOptions {
                  private NodeOptions() {}

                  /** The environment variable the node reads each option from (--some-name: DHT_SOME_NAME). */
                  public static final class Env {
                %s
                    private Env() {}
                  }

                  /** The command-line flag of each option, for the few the pod template passes as arguments. */
                  public static final class Flag {
                %s
                    private Flag() {}
                  }

                  /** Fixed defaults, as the node reads them (sizes as Kubernetes quantities). */
                  public static final class Default {
                %s
                    private Default() {}
                  }
                }
                """.formatted(env, flag, dflt);
    }

    static String docs() {
        StringBuilder sb = new StringBuilder();
        sb.append("# Node options\n\n");
        sb.append("<!-- GENERATED from dev.dht.node.config.NodeOption by make crds: do not edit. -->\n\n");
        sb.append("Every option of the storage node; `java -jar dht-node.jar --help` prints the same, with this"
                + " machine's values\nwhere a default depends on the machine. Each option also comes from the"
                + " environment variable shown; the command\nline wins. SIZE: bytes or k/m/g with optional i/iB/B"
                + " (binary: 64MiB = 64Mi = 64m). DUR: 500ms, 1s, 2m, 1h, 1d.\nOn Kubernetes the operator sets"
                + " them from the DhtCluster ([operator.md](operator.md)).\n\n");
        sb.append("| option | environment | default | what it does |\n|---|---|---|---|\n");
        for (NodeOption o : NodeOption.values()) {
            if (o.testOnly()) {
                continue;
            }
            sb.append("| `")
                    .append((o.flag() + " " + o.metavar()).replace("|", "\\|"))
                    .append("` | `")
                    .append(o.env())
                    .append("` | ")
                    .append(text(o.describedDefault()))
                    .append(" | ")
                    .append(text(o.help()))
                    .append(" |\n");
        }
        return sb.toString();
    }

    /** Markdown table cell text. */
    private static String text(String s) {
        return s.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
    }
}
