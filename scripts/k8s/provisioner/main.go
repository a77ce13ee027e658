// Command provisioner is the local cluster's dynamic volume provisioner (StorageClass "dht-local", the
// default class): for each claim it makes a directory under --root on this host and a "local" PersistentVolume
// pinned to this node; when a released volume's reclaim policy is Delete it removes the directory. Local
// volumes (unlike hostPath) get fsGroup ownership, so non-root pods can write to them.
// Single node only, as is the cluster scripts/k8s/up.sh starts.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v11/controller"
)

const name = "dht.dev/local"

type localProvisioner struct {
	root string
	node string
}

func (p *localProvisioner) Provision(_ context.Context, opts controller.ProvisionOptions) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	if opts.SelectedNode != nil && opts.SelectedNode.Name != p.node {
		return nil, controller.ProvisioningFinished, fmt.Errorf("node %q selected, this provisioner serves %q", opts.SelectedNode.Name, p.node)
	}
	dir := filepath.Join(p.root, fmt.Sprintf("%s_%s_%s", opts.PVC.Namespace, opts.PVC.Name, opts.PVName))
	// World-writable until the kubelet applies the pod's fsGroup; only this host's pods can reach it.
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: opts.PVName, Annotations: map[string]string{"dht.dev/local-path": dir}},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: *opts.StorageClass.ReclaimPolicy,
			AccessModes:                   opts.PVC.Spec.AccessModes,
			Capacity:                      v1.ResourceList{v1.ResourceStorage: opts.PVC.Spec.Resources.Requests[v1.ResourceStorage]},
			VolumeMode:                    opts.PVC.Spec.VolumeMode,
			PersistentVolumeSource:        v1.PersistentVolumeSource{Local: &v1.LocalVolumeSource{Path: dir}},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{
					Key: "kubernetes.io/hostname", Operator: v1.NodeSelectorOpIn, Values: []string{p.node},
				}},
			}}}},
		},
	}
	klog.InfoS("provisioned", "pvc", opts.PVC.Namespace+"/"+opts.PVC.Name, "pv", opts.PVName, "path", dir)
	return pv, controller.ProvisioningFinished, nil
}

func (p *localProvisioner) Delete(_ context.Context, pv *v1.PersistentVolume) error {
	dir := pv.Annotations["dht.dev/local-path"]
	if dir == "" || !strings.HasPrefix(filepath.Clean(dir), filepath.Clean(p.root)+string(os.PathSeparator)) {
		return errors.New("not a volume of this provisioner: " + pv.Name)
	}
	klog.InfoS("deleting", "pv", pv.Name, "path", dir)
	return os.RemoveAll(dir)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster")
	root := flag.String("root", "", "directory that holds the volumes")
	node := flag.String("node", "", "name of the cluster's node")
	klog.InitFlags(nil)
	flag.Parse()
	if *kubeconfig == "" || *root == "" || *node == "" {
		klog.Fatal("--kubeconfig, --root and --node are required")
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		klog.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(config)
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	pc := controller.NewProvisionController(ctx, client, name, &localProvisioner{root: *root, node: *node},
		controller.LeaderElection(false))
	pc.Run(ctx)
}
