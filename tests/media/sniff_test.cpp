// An upload's type comes from its bytes: real small files built here (a PDF,
// a PNG, a docx and an odt made with libzip, text) are accepted with the type
// they are; programs, scripts, HTML and a plain zip are refused whatever
// their names say.
#include "media/sniff.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <filesystem>
#include <fstream>

#include "tests/support/backends.h"

namespace peto {
namespace {

namespace fs = std::filesystem;

const std::string kPdf =
    "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    "2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
    "trailer << /Root 1 0 R >>\n%%EOF\n";

std::string png() {
  // The signature and an IHDR chunk of a 1×1 image.
  const unsigned char bytes[] = {0x89, 'P',  'N',  'G',  0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00,
                                 0x0d, 'I',  'H',  'D',  'R',  0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
                                 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89};
  return std::string(reinterpret_cast<const char*>(bytes), sizeof bytes);
}

class SniffTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& bytes) {
    fs::path p = dir_.path() / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  // A zip with the given entries (name → content), in that order.
  std::string zip(const std::string& name,
                  const std::vector<std::pair<std::string, std::string>>& entries) {
    std::string path = (dir_.path() / name).string();
    int err = 0;
    zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    EXPECT_NE(za, nullptr);
    for (const auto& [entry, content] : entries) {
      zip_source_t* src = zip_source_buffer(za, content.data(), content.size(), 0);
      EXPECT_GE(zip_file_add(za, entry.c_str(), src, ZIP_FL_OVERWRITE), 0);
    }
    EXPECT_EQ(zip_close(za), 0);
    return path;
  }
  testing::TempDir dir_;
};

TEST_F(SniffTest, PdfPngAndTextAreAcceptedAsWhatTheyAre) {
  auto pdf = media::sniff_file(write("cv.txt", kPdf));  // the name does not matter
  EXPECT_TRUE(pdf.allowed) << pdf.detected;
  EXPECT_EQ(pdf.content_type, "application/pdf");
  EXPECT_EQ(pdf.extension, "pdf");

  auto image = media::sniff_file(write("photo.pdf", png()));
  EXPECT_TRUE(image.allowed) << image.detected;
  EXPECT_EQ(image.content_type, "image/png");
  EXPECT_EQ(image.extension, "png");

  auto text = media::sniff_file(write("letter", "Dear hiring team,\nI am writing to apply.\n"));
  EXPECT_TRUE(text.allowed) << text.detected;
  EXPECT_EQ(text.content_type, "text/plain");
  EXPECT_EQ(text.extension, "txt");
}

TEST_F(SniffTest, OfficeDocumentsAreToldByTheirEntries) {
  auto docx = media::sniff_file(
      zip("cv.bin", {{"[Content_Types].xml", "<?xml version=\"1.0\"?><Types/>"},
                     {"_rels/.rels", "<?xml version=\"1.0\"?><Relationships/>"},
                     {"word/document.xml", "<?xml version=\"1.0\"?><w:document/>"}}));
  EXPECT_TRUE(docx.allowed) << docx.detected;
  EXPECT_EQ(docx.content_type,
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document");
  EXPECT_EQ(docx.extension, "docx");

  auto odt =
      media::sniff_file(zip("letter.zip", {{"mimetype", "application/vnd.oasis.opendocument.text"},
                                           {"content.xml", "<office:document-content/>"}}));
  EXPECT_TRUE(odt.allowed) << odt.detected;
  EXPECT_EQ(odt.extension, "odt");

  auto plain_zip = media::sniff_file(zip("cv.docx", {{"readme.txt", "hello"}}));
  EXPECT_FALSE(plain_zip.allowed) << "a zip that is no office document is refused";
}

TEST_F(SniffTest, ProgramsScriptsAndHtmlAreRefusedWhateverTheirNames) {
  std::string elf = std::string(
                        "\x7f"
                        "ELF\x02\x01\x01",
                        7) +
                    std::string(57, '\0');
  auto program = media::sniff_file(write("cv.pdf", elf));
  EXPECT_FALSE(program.allowed) << program.detected;
  EXPECT_EQ(program.extension, "");

  auto script = media::sniff_file(write("cv.txt", "#!/bin/sh\nrm -rf \"$HOME\"\n"));
  EXPECT_FALSE(script.allowed) << script.detected;

  auto html = media::sniff_file(
      write("cv.pdf",
            "<!DOCTYPE html>\n<html><head><title>x</title></head><body><script>alert(1)"
            "</script></body></html>\n"));
  EXPECT_FALSE(html.allowed) << html.detected;

  auto empty = media::sniff_file(write("empty.pdf", ""));
  EXPECT_FALSE(empty.allowed);
}

TEST_F(SniffTest, BytesAloneAreEnoughForAllButZips) {
  EXPECT_TRUE(media::sniff_bytes(kPdf).allowed);
  EXPECT_FALSE(media::sniff_bytes("<html><body>hi</body></html>").allowed);
}

}  // namespace
}  // namespace peto
