package present

// ReadOnlyError is a change refused because the session is read-only
// (--read-only, or read_only = true in the config). Every write of the
// dashboard and of the commands is refused with it, before anything is
// sent: the one home of the rule and of its words.
type ReadOnlyError struct {
	// What is the change refused, in the user's words ("deleting a
	// batch").
	What string
}

func (e *ReadOnlyError) Error() string {
	return "read-only: " + e.What + " is disabled (--read-only or read_only = true in the config); nothing was sent"
}

// Writes are the changes a read-only session refuses, as the messages
// name them.
const (
	WriteBatchSubmit = "submitting a batch"
	WriteBatchDelete = "deleting a batch"
	WriteBatchRetry  = "retrying a batch's failed rows"
	WriteDestCreate  = "creating a destination"
	WriteDestUpdate  = "editing a destination"
	WriteDestToggle  = "enabling or disabling a destination"
	WriteDestDelete  = "deleting a destination"
)

// RefuseWrite is the refusal of the change what when readOnly, else nil.
func RefuseWrite(readOnly bool, what string) error {
	if !readOnly {
		return nil
	}
	return &ReadOnlyError{What: what}
}
