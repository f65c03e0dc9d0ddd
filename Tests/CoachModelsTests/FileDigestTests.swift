import CoachModels
import Foundation
import TestSupport
import XCTest

final class FileDigestTests: XCTestCase {
    /// FIPS 180-2 test vectors.
    func testKnownVectors() throws {
        XCTAssertEqual(try FileDigest.sha256(of: Data()),
                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(try FileDigest.sha256(of: Data("abc".utf8)),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(try FileDigest.sha256(of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// A file spanning several read chunks: one million 'a' (FIPS vector) plus a 3 MB file
    /// that must hash like its bytes in memory.
    func testFilesAreHashedAcrossChunks() throws {
        let directory = try temporaryDirectory(self)
        let million = directory.appendingPathComponent("a.bin")
        try Data(repeating: UInt8(ascii: "a"), count: 1_000_000).write(to: million)
        XCTAssertEqual(try FileDigest.sha256(ofFileAt: million),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        let big = directory.appendingPathComponent("big.bin")
        let bytes = Data((0..<3_000_001).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        try bytes.write(to: big)
        XCTAssertEqual(try FileDigest.sha256(ofFileAt: big), try FileDigest.sha256(of: bytes))
        XCTAssertThrowsError(try FileDigest.sha256(ofFileAt: directory.appendingPathComponent("none"))) { error in
            XCTAssertEqual(error as? ModelFileError, .fileNotFound(path: directory.appendingPathComponent("none").path))
        }
    }
}
