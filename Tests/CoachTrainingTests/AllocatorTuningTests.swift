import CoachTraining
import XCTest

/// glibc accepts every setting `AllocatorTuning` makes (trim and mmap thresholds, one arena):
/// a rejected one would leave training to page-fault its tensors anew at every step.
final class AllocatorTuningTests: XCTestCase {
    func testGlibcAcceptsTheSettings() throws {
        guard let handle = dlopen(nil, RTLD_NOW), dlsym(handle, "mallopt") != nil else {
            throw XCTSkip("no mallopt: not glibc, the allocator is left alone")
        }
        XCTAssertTrue(AllocatorTuning.retainFreedMemory())
    }
}
