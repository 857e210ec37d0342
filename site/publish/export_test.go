package publish

// MetaJournal is the user-metadata key flagging index.json while a publish
// is in progress, for the external tests.
const MetaJournal = metaJournal
