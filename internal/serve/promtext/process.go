package promtext

// ProcessCollector yields the process families of client_golang's process collector that this platform can
// read (process_linux.go); elsewhere none.
type ProcessCollector struct{}

func (ProcessCollector) collect() []family { return processFamilies() }
