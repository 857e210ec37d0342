// Package viewer holds no code: its tests drive the static viewer
// (package github.com/upgraph/upgraph/viewer, which generator.Render
// writes into every tree) in headless Chromium, on the demo tree served
// by the real site handler, and benchmark its first render on a
// real-scale tree. See viewer/README.md.
package viewer
