// Package imagebuild builds upgraph's container image without a container
// daemon or a Dockerfile: the binary is cross-compiled with the go command,
// and the image index, manifests, configs and layers are assembled with
// go-containerregistry, then written as an OCI image layout or pushed.
//
// The image is reproducible: every byte of it (tar headers, gzip stream,
// config, manifests, index) is a function of the source tree, the Go
// toolchain and Metadata, so the same inputs always give the same index
// digest and anyone can check a published image against a rebuild.
//
// Each platform's image is one layer holding only the static binary at
// /usr/bin/upgraph, /etc/passwd and /etc/group naming the non-root user
// upgraph (uid and gid 65532), an empty /tmp and the data directory
// /var/lib/upgraph owned by that user. There is no shell; TLS roots come
// from the binary itself (cmd/upgraph/roots.go).
package imagebuild
