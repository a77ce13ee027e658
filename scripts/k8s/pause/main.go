// Command pause is the pod sandbox ("infra container") of the local cluster: it holds the pod's namespaces,
// reaps orphaned children and exits on SIGINT/SIGTERM. Built by scripts/k8s/up.sh because no registry is
// reachable to pull the usual one.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for {
			var status syscall.WaitStatus
			if _, err := syscall.Wait4(-1, &status, 0, nil); err != nil {
				// No children: wait for a signal instead of spinning.
				select {}
			}
		}
	}()
	<-stop
	os.Exit(0)
}
