import CoachTraining
import XCTest

/// The penalty grid's search (`PenaltySearch.lowest`): it evaluates losses in order, stops at the
/// first that does not improve on the best, and returns the whole grid's lowest when the losses
/// fall and then rise.
final class PenaltySearchTests: XCTestCase {
    private func search(_ losses: [Double]) -> (index: Int, evaluated: [Int]) {
        var evaluated: [Int] = []
        let result = PenaltySearch.lowest(count: losses.count) { index -> Double in
            evaluated.append(index)
            return losses[index]
        }
        XCTAssertEqual(result.evaluated, evaluated.count, "the count it reports is the count it evaluated")
        return (result.index, evaluated)
    }

    func testFallingThenRisingLossesStopOnePastTheLowestAndPickTheGridsLowest() {
        let losses: [Double] = [3, 2, 1, 2, 5, 0.5]
        let result = search(Array(losses.prefix(5)))
        XCTAssertEqual(result.index, 2)
        XCTAssertEqual(result.index, losses.prefix(5).indices.min { losses[$0] < losses[$1] })
        XCTAssertEqual(result.evaluated, [0, 1, 2, 3], "nothing after the first rise is fitted")
    }

    func testFallingLossesEvaluateTheWholeGrid() {
        let result = search([1.6, 1.2, 0.9, 0.85])
        XCTAssertEqual(result.index, 3)
        XCTAssertEqual(result.evaluated, [0, 1, 2, 3])
    }

    func testALossThatRisesFirstKeepsTheLargestPenaltyEvenIfALaterOneDips() {
        // The limit of stopping early: a dip after a rise is not seen (the whole grid would pick 2).
        let result = search([1.0, 1.2, 0.5])
        XCTAssertEqual(result.index, 0)
        XCTAssertEqual(result.evaluated, [0, 1])
    }

    func testTiesWithinRoundingKeepTheLargerPenalty() {
        XCTAssertEqual(search([1, 1 - 1e-13, 0.2]).index, 0)
        XCTAssertEqual(search([1, 1 - 1e-9, 0.2]).index, 2)
    }

    func testOneOrNoPenaltiesAndErrors() {
        XCTAssertEqual(search([0.7]).index, 0)
        XCTAssertEqual(search([0.7]).evaluated, [0])
        XCTAssertEqual(PenaltySearch.lowest(count: 0) { _ in 1 }.evaluated, 0)
        struct Failure: Error {}
        XCTAssertThrowsError(try PenaltySearch.lowest(count: 3) { index -> Double in
            if index == 1 { throw Failure() }
            return 1
        })
    }
}
