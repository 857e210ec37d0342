package main

// The container image (internal/imagebuild) holds nothing but this binary,
// /etc/passwd and /etc/group: there is no /etc/ssl, so crypto/x509 would
// find no system roots and every HTTPS call (registries, S3, graph-data
// downloads) would fail certificate verification. The fallback bundle is
// used only when the system has no roots of its own; on a host with a CA
// store, or with SSL_CERT_FILE/SSL_CERT_DIR set, those still win.
import _ "golang.org/x/crypto/x509roots/fallback"
