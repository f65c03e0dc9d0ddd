import CoachData
import XCTest

/// Class names in any language line up in the printed tables.
final class TerminalWidthTests: XCTestCase {
    func testColumnsOfLatinCJKAndEmojiNames() {
        XCTAssertEqual("overhand".terminalWidth, 8)
        XCTAssertEqual("caf\u{E9}".terminalWidth, 4, "precomposed é")
        XCTAssertEqual("cafe\u{301}".terminalWidth, 4, "e and a combining acute, as macOS spells file names")
        XCTAssertEqual("日本".terminalWidth, 4)
        XCTAssertEqual("야구".terminalWidth, 4)
        XCTAssertEqual("ｂａｌｌ".terminalWidth, 8, "fullwidth Latin")
        XCTAssertEqual("⚽".terminalWidth, 2)
        XCTAssertEqual("👍🏽".terminalWidth, 2, "a skin-tone modifier adds no column")
    }

    func testPaddingFillsToTheSameColumn() {
        let names = ["ball", "日本の球", "cafe\u{301} au lait"]
        let width = names.map(\.terminalWidth).max()!
        XCTAssertEqual(width, 12)
        for name in names { XCTAssertEqual(name.padded(toWidth: width).terminalWidth, width, name) }
        XCTAssertEqual("7".padded(toWidth: 3, left: true), "  7")
        XCTAssertEqual("日本".padded(toWidth: 3), "日本", "wider than asked: whole")
    }
}
