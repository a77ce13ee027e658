package dev.dht.operator.testing;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only where the API server binaries are. Under make (KUBE_API_TEST_DIR set) a
 * missing binary is a failure with a message, never a silent skip; without KUBE_API_TEST_DIR and
 * without binaries in the default cache the class is skipped, and says so on stderr.
 */
public class RequiresKubeApiServer implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        var binaries = KubeApiServer.locate();
        if (binaries.binDir().isPresent()) {
            return ConditionEvaluationResult.enabled(
                    "API server binaries in " + binaries.binDir().get());
        }
        if (binaries.required()) {
            throw new IllegalStateException(binaries.problem());
        }
        System.err.println("SKIPPED " + context.getDisplayName() + ": " + binaries.problem());
        return ConditionEvaluationResult.disabled(binaries.problem());
    }
}
