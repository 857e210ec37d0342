// Package dirswap puts a new directory tree in place of an old one
// without the path ever missing where the system allows it: an atomic
// exchange of two directories, and a flush of the file system that
// holds one, so that an exchange never publishes files whose data is
// not on disk yet. On Linux they are renameat2(RENAME_EXCHANGE) and
// syncfs(2); elsewhere the exchange is the caller's fallback and the
// flush a no-op.
package dirswap
