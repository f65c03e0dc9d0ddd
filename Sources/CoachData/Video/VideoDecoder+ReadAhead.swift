import Foundation

extension VideoDecoder {
    /// Calls `body` with each remaining frame in display order while the frames after it are
    /// decoded on a thread of their own, at most `readAhead` ahead, so decoding overlaps with the
    /// work on each frame. The frames, their order and the damage counters are those of
    /// `nextFrame()`; a decoding error is thrown after `body` has seen every frame before it, and
    /// an error from `body` stops the decoding (the frames decoded ahead of it are dropped, and
    /// the damage counters include them). With `readAhead` 0 or one core, decodes inline.
    public func forEachFrame(readAhead: Int = 4, _ body: (VideoFrame) throws -> Void) throws {
        guard readAhead > 0, ProcessInfo.processInfo.activeProcessorCount > 1 else {
            while let frame = try nextFrame() { try body(frame) }
            return
        }
        let pipeline = ReadAheadPipeline(decoder: self, capacity: readAhead)
        let thread = Thread { pipeline.produce() }
        thread.name = "coach video decoding"
        thread.start()
        defer { pipeline.stopAndWait() }
        while let frame = try pipeline.next() { try body(frame) }
    }
}

/// A bounded queue between the decoding thread and the caller. The decoder is touched by the
/// decoding thread alone until `stopAndWait` has returned.
private final class ReadAheadPipeline: @unchecked Sendable {
    private let decoder: VideoDecoder
    private let capacity: Int
    private let condition = NSCondition()
    private var frames: [VideoFrame] = []
    private var head = 0
    private var finished = false
    private var failure: Error?
    private var stopped = false
    private let exited = DispatchSemaphore(value: 0)

    init(decoder: VideoDecoder, capacity: Int) {
        self.decoder = decoder
        self.capacity = capacity
    }

    /// The decoding thread: frames into the queue until the end, an error, or `stop`.
    func produce() {
        defer { exited.signal() }
        while true {
            condition.lock()
            while frames.count - head >= capacity && !stopped { condition.wait() }
            let stop = stopped
            condition.unlock()
            if stop { return }
            let result = Result { try decoder.nextFrame() }
            condition.lock()
            switch result {
            case .success(let frame?): frames.append(frame)
            case .success(nil): finished = true
            case .failure(let error): failure = error; finished = true
            }
            let done = finished
            condition.broadcast()
            condition.unlock()
            if done { return }
        }
    }

    /// The next frame; nil after the last; rethrows the decoder's error in its place.
    func next() throws -> VideoFrame? {
        condition.lock()
        defer { condition.unlock() }
        while head == frames.count && !finished { condition.wait() }
        if head < frames.count {
            let frame = frames[head]
            head += 1
            if head >= 64 { frames.removeFirst(head); head = 0 }
            condition.broadcast()
            return frame
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops the decoding thread and waits until it has left the decoder.
    func stopAndWait() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        exited.wait()  // signalled once, when the thread leaves `produce` (also on its own)
    }
}
