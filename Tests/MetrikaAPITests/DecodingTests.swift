import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel

/// The documented examples of ../shared/metrika-api.md, decoded verbatim.
struct DecodingTests {
    static let documentedCounter = """
        {"id": 880000, "status": "Active", "owner_login": "example-developer", "code_status": "CS_ERR_UNKNOWN",
         "activity_status": "low", "name": "counter_option test example-developer", "type": "simple",
         "favorite": 0, "hide_address": 0, "pro": 0, "permission": "view",
         "webvisor": {"arch_enabled": 0, "arch_type": "none", "load_player_type": "proxy", "wv_version": 2,
                      "allow_wv2": true, "notify_wv2": false, "wv_forms": 1},
         "code_options": {"async": 1, "visor": 0, "track_hash": 0, "clickmap": 1, "ecommerce": 0,
                          "ecommerce_object": "dataLayer", "ytm": false},
         "create_time": "2022-03-25T15:59:52+03:00", "time_zone_name": "Europe/Moscow", "time_zone_offset": 180,
         "partner_id": 0, "site": "example-developer.ru",
         "site2": {"site": "example-developer.ru", "domain": "example-developer.ru"},
         "gdpr_agreement_accepted": 0, "delete_guest_allowed": 1}
        """

    static let documentedData = """
        {
          "query": {"ids": [100500], "dimensions": ["ym:s:date"], "metrics": ["ym:s:visits"], "sort": ["ym:s:date"],
                    "date1": "2020-10-01", "date2": "2020-10-05", "limit": 100, "offset": 1, "group": "Day",
                    "attribution": "LastSign", "currency": "RUB"},
          "data": [
            {"dimensions": [{"name": "2020-10-01"}], "metrics": [14234.0]},
            {"dimensions": [{"name": "2020-10-02"}], "metrics": [12508.0]}
          ],
          "total_rows": 5, "total_rows_rounded": false, "sampled": false, "contains_sensitive_data": false,
          "sample_share": 1.0, "sample_size": 68280, "sample_space": 68280, "data_lag": 4242,
          "totals": [68274.0], "min": [12365.0], "max": [14588.0]
        }
        """

    @Test func documentedCounterExampleDecodes() throws {
        let wire = try JSONDecoder().decode(WireCounter.self, from: Data(Self.documentedCounter.utf8))
        let counter = wire.counter
        #expect(counter.id == 880000)
        #expect(counter.name == "counter_option test example-developer")
        #expect(counter.site == "example-developer.ru")
        #expect(counter.status == "Active")
        #expect(counter.permission == "view")
        #expect(counter.ownerLogin == "example-developer")
        #expect(counter.timeZoneName == "Europe/Moscow")
        #expect(counter.timeZoneOffsetMinutes == 180)
        #expect(counter.createTime == "2022-03-25T15:59:52+03:00")
        #expect(counter.isFavorite == false)
    }

    @Test func counterToleratesFloatsBooleansNullsAndSite2Only() throws {
        let json =
            #"{"id": 42.0, "name": null, "site2": {"site": "only-site2.ru"}, "favorite": true, "time_zone_offset": "300", "new_field": [1,2]}"#
        let counter = try JSONDecoder().decode(WireCounter.self, from: Data(json.utf8)).counter
        #expect(counter.id == 42)
        #expect(counter.name == "")
        #expect(counter.site == "only-site2.ru")
        #expect(counter.isFavorite)
        #expect(counter.timeZoneOffsetMinutes == 300)
    }

    @Test func documentedDataExampleDecodes() throws {
        let page = try JSONDecoder().decode(StatDataPage.self, from: Data(Self.documentedData.utf8))
        #expect(page.totalRows == 5)
        #expect(page.rowCount == 2)
        #expect(page.rows[0].dimensions == [DimensionValue(name: "2020-10-01")])
        #expect(page.rows[1].metrics == [12508.0])
        #expect(page.totals == [68274.0])
        #expect(page.sampled == false)
        #expect(page.sampleShare == 1.0)
        #expect(page.dataLag == 4242)
        #expect(page.queryMetrics == ["ym:s:visits"])
        #expect(page.queryDimensions == ["ym:s:date"])
    }

    @Test func metricValuesMayBeNullIntegersOrNumericStrings() throws {
        let json =
            #"{"data":[{"dimensions":[{"name":null,"id":7}],"metrics":[41, null, 41.5, "12.5"]}],"total_rows":1,"totals":[1,null,2,3]}"#
        let page = try JSONDecoder().decode(StatDataPage.self, from: Data(json.utf8))
        #expect(page.rows[0].metrics == [41, nil, 41.5, 12.5])
        #expect(page.rows[0].dimensions == [DimensionValue(name: nil, id: "7")])
        #expect(page.totals == [1, nil, 2, 3])
    }

    @Test(arguments: [#""NaN""#, #""Infinity""#, #""-Infinity""#, #""abc""#, "{}", "[1]"])
    func nonNumericMetricValuesAreRefused(value: String) {
        let json = #"{"data":[{"dimensions":[],"metrics":[\#(value)]}],"total_rows":1,"totals":[]}"#
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(StatDataPage.self, from: Data(json.utf8))
        }
    }

    @Test func byTimeTotalsAndIntervals() throws {
        let json =
            #"{"data":[{"dimensions":[],"metrics":[[10,20]]}],"totals":[[10,20]],"time_intervals":[["2026-11-02","2026-11-08"],["2026-11-09","2026-11-10"]],"sampled":0}"#
        let answer = try JSONDecoder().decode(StatByTime.self, from: Data(json.utf8))
        #expect(answer.totals == [[10, 20]])
        #expect(answer.timeIntervals == [["2026-11-02", "2026-11-08"], ["2026-11-09", "2026-11-10"]])
        #expect(answer.sampled == false)
    }
}
