/* SPDX-License-Identifier: MIT */
/*
 * vk_clear: a headless Vulkan program that renders without shaders of its
 * own, for Mesa's asahi Vulkan driver on the embedded GPU
 * (tests/gl/asahi_vulkan.sh).
 *
 *   vk_clear [OUTDIR [FRAMES]]
 *
 * Prints the first physical device ("device: NAME"), then FRAMES (default 1)
 * times: a render pass on a 64x64 RGBA8 image whose load op clears it to a
 * frame colour (the driver's background program), a vkCmdClearAttachments
 * of the centre 32x32 square in another colour (a draw with the driver's
 * own clear shader), the image copied into a host-visible buffer, and a
 * vkCmdFillBuffer (a compute dispatch of the driver's); one submission and
 * fence wait per frame. Every pixel and word is checked against the colours
 * asked for ("PASS: frame N" / "FAIL: ..."); with OUTDIR, frame N's image
 * is written as OUTDIR/frameNN.png (rows in memory order, top first).
 * Exit 0 when every frame passed, 1 on a wrong pixel, 2 when Vulkan could
 * not be set up (no device: the message names the failing call).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "tests/gl/test_png.h"

#define W 64
#define H 64
#define FILL_WORDS 1024
#define FILL_VALUE 0x5a5aa5a5u

static int
vk_fail(const char *what, VkResult r)
{
   fprintf(stderr, "vk_clear: %s failed: VkResult %d\n", what, (int)r);
   return 2;
}

#define VK_CHECK(call)                                                        \
   do {                                                                       \
      VkResult r_ = (call);                                                   \
      if (r_ != VK_SUCCESS)                                                   \
         return vk_fail(#call, r_);                                           \
   } while (0)

/* A memory type index with all of `want` among `bits`, or -1 */
static int
find_memory(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits,
            VkMemoryPropertyFlags want)
{
   for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
      if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want)
         return (int)i;
   return -1;
}

/* Frame i's colours, exactly representable in UNORM8 */
static void
frame_colours(unsigned i, uint8_t bg[4], uint8_t fg[4])
{
   const uint8_t b[4] = { (uint8_t)(17 * (i % 15)), 51, 255, 255 };
   const uint8_t f[4] = { 255, (uint8_t)(255 - 17 * (i % 15)), 0, 255 };
   memcpy(bg, b, 4);
   memcpy(fg, f, 4);
}

static VkClearColorValue
to_clear(const uint8_t c[4])
{
   VkClearColorValue v;
   for (int k = 0; k < 4; k++)
      v.float32[k] = c[k] / 255.0f;
   return v;
}

int
main(int argc, char **argv)
{
   const char *outdir = argc > 1 ? argv[1] : NULL;
   unsigned frames = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1;
   if (argc > 3 || frames == 0 || frames > 1000) {
      fprintf(stderr, "usage: vk_clear [OUTDIR [FRAMES (1..1000)]]\n");
      return 2;
   }

   const VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "vk_clear",
      .apiVersion = VK_API_VERSION_1_1,
   };
   const VkInstanceCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
   };
   VkInstance inst;
   VK_CHECK(vkCreateInstance(&ici, NULL, &inst));

   uint32_t ndev = 1;
   VkPhysicalDevice pdev;
   VkResult er = vkEnumeratePhysicalDevices(inst, &ndev, &pdev);
   if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || ndev == 0) {
      fprintf(stderr, "vk_clear: no Vulkan device (VkResult %d)\n", (int)er);
      return 2;
   }
   VkPhysicalDeviceProperties props;
   vkGetPhysicalDeviceProperties(pdev, &props);
   printf("device: %s\n", props.deviceName);

   uint32_t nq = 0;
   vkGetPhysicalDeviceQueueFamilyProperties(pdev, &nq, NULL);
   VkQueueFamilyProperties qf[16];
   nq = nq > 16 ? 16 : nq;
   vkGetPhysicalDeviceQueueFamilyProperties(pdev, &nq, qf);
   uint32_t family = UINT32_MAX;
   for (uint32_t i = 0; i < nq && family == UINT32_MAX; i++)
      if (qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)
         family = i;
   if (family == UINT32_MAX) {
      fprintf(stderr, "vk_clear: no graphics queue\n");
      return 2;
   }

   const float prio = 1.0f;
   const VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = family,
      .queueCount = 1,
      .pQueuePriorities = &prio,
   };
   const VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
   };
   VkDevice dev;
   VK_CHECK(vkCreateDevice(pdev, &dci, NULL, &dev));
   VkQueue queue;
   vkGetDeviceQueue(dev, family, 0, &queue);

   VkPhysicalDeviceMemoryProperties mp;
   vkGetPhysicalDeviceMemoryProperties(pdev, &mp);

   /* The colour image */
   const VkImageCreateInfo imci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .extent = { W, H, 1 },
      .mipLevels = 1,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   VkImage image;
   VK_CHECK(vkCreateImage(dev, &imci, NULL, &image));
   VkMemoryRequirements mr;
   vkGetImageMemoryRequirements(dev, image, &mr);
   int mt = find_memory(&mp, mr.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
   if (mt < 0)
      mt = find_memory(&mp, mr.memoryTypeBits, 0);
   if (mt < 0)
      return vk_fail("find image memory", VK_ERROR_OUT_OF_DEVICE_MEMORY);
   VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = mr.size,
      .memoryTypeIndex = (uint32_t)mt,
   };
   VkDeviceMemory image_mem;
   VK_CHECK(vkAllocateMemory(dev, &mai, NULL, &image_mem));
   VK_CHECK(vkBindImageMemory(dev, image, image_mem, 0));

   /* Host-visible buffers: the image's copy, then the filled words */
   const VkDeviceSize copy_size = (VkDeviceSize)W * H * 4;
   const VkDeviceSize fill_size = FILL_WORDS * 4;
   const VkBufferCreateInfo bci = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = copy_size + fill_size,
      .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
   };
   VkBuffer buf;
   VK_CHECK(vkCreateBuffer(dev, &bci, NULL, &buf));
   vkGetBufferMemoryRequirements(dev, buf, &mr);
   mt = find_memory(&mp, mr.memoryTypeBits,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
   if (mt < 0)
      return vk_fail("find host-visible memory", VK_ERROR_OUT_OF_DEVICE_MEMORY);
   mai.allocationSize = mr.size;
   mai.memoryTypeIndex = (uint32_t)mt;
   VkDeviceMemory buf_mem;
   VK_CHECK(vkAllocateMemory(dev, &mai, NULL, &buf_mem));
   VK_CHECK(vkBindBufferMemory(dev, buf, buf_mem, 0));
   uint8_t *host;
   VK_CHECK(vkMapMemory(dev, buf_mem, 0, VK_WHOLE_SIZE, 0, (void **)&host));

   const VkImageViewCreateInfo ivci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   VkImageView view;
   VK_CHECK(vkCreateImageView(dev, &ivci, NULL, &view));

   const VkAttachmentDescription att = {
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
      .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
      .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
      .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
   };
   const VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1,
      .pColorAttachments = &ref,
   };
   /* The copy after the pass reads what the pass wrote */
   const VkSubpassDependency dep = {
      .srcSubpass = 0,
      .dstSubpass = VK_SUBPASS_EXTERNAL,
      .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
      .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
      .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
   };
   const VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 1,
      .pAttachments = &att,
      .subpassCount = 1,
      .pSubpasses = &sub,
      .dependencyCount = 1,
      .pDependencies = &dep,
   };
   VkRenderPass rp;
   VK_CHECK(vkCreateRenderPass(dev, &rpci, NULL, &rp));
   const VkFramebufferCreateInfo fbci = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = rp,
      .attachmentCount = 1,
      .pAttachments = &view,
      .width = W,
      .height = H,
      .layers = 1,
   };
   VkFramebuffer fb;
   VK_CHECK(vkCreateFramebuffer(dev, &fbci, NULL, &fb));

   const VkCommandPoolCreateInfo cpci = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = family,
   };
   VkCommandPool pool;
   VK_CHECK(vkCreateCommandPool(dev, &cpci, NULL, &pool));
   const VkCommandBufferAllocateInfo cbai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
   };
   VkCommandBuffer cb;
   VK_CHECK(vkAllocateCommandBuffers(dev, &cbai, &cb));
   const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   VkFence fence;
   VK_CHECK(vkCreateFence(dev, &fci, NULL, &fence));

   unsigned failed = 0;
   for (unsigned f = 0; f < frames; f++) {
      uint8_t bg[4], fg[4];
      frame_colours(f, bg, fg);
      memset(host, 0, (size_t)(copy_size + fill_size));

      const VkCommandBufferBeginInfo cbbi = {
         .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
         .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
      };
      VK_CHECK(vkBeginCommandBuffer(cb, &cbbi));
      const VkClearValue clear = { .color = to_clear(bg) };
      const VkRenderPassBeginInfo rpbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = rp,
         .framebuffer = fb,
         .renderArea = { { 0, 0 }, { W, H } },
         .clearValueCount = 1,
         .pClearValues = &clear,
      };
      vkCmdBeginRenderPass(cb, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
      const VkClearAttachment ca = {
         .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
         .colorAttachment = 0,
         .clearValue = { .color = to_clear(fg) },
      };
      const VkClearRect cr = { { { W / 4, H / 4 }, { W / 2, H / 2 } }, 0, 1 };
      vkCmdClearAttachments(cb, 1, &ca, 1, &cr);
      vkCmdEndRenderPass(cb);

      const VkBufferImageCopy copy = {
         .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
         .imageExtent = { W, H, 1 },
      };
      vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &copy);
      vkCmdFillBuffer(cb, buf, copy_size, fill_size, FILL_VALUE ^ f);

      const VkMemoryBarrier host_read = {
         .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
         .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
      };
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                           1, &host_read, 0, NULL, 0, NULL);
      VK_CHECK(vkEndCommandBuffer(cb));

      const VkSubmitInfo si = {
         .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
         .commandBufferCount = 1,
         .pCommandBuffers = &cb,
      };
      VK_CHECK(vkQueueSubmit(queue, 1, &si, fence));
      VK_CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, 60ull * 1000 * 1000 * 1000));
      VK_CHECK(vkResetFences(dev, 1, &fence));

      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++) {
         for (unsigned x = 0; x < W; x++) {
            bool inside = x >= W / 4 && x < 3 * W / 4 && y >= H / 4 && y < 3 * H / 4;
            const uint8_t *want = inside ? fg : bg;
            const uint8_t *got = host + ((size_t)y * W + x) * 4;
            if (memcmp(got, want, 4) != 0 && bad++ < 3)
               printf("FAIL: frame %u pixel (%u,%u) = %u,%u,%u,%u, want %u,%u,%u,%u\n", f, x, y,
                      got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
         }
      }
      const uint32_t *words = (const uint32_t *)(host + copy_size);
      unsigned bad_words = 0;
      for (unsigned i = 0; i < FILL_WORDS; i++)
         bad_words += words[i] != (FILL_VALUE ^ f);
      if (bad_words)
         printf("FAIL: frame %u fill: %u of %u words wrong (word 0 = 0x%08x)\n", f, bad_words,
                FILL_WORDS, words[0]);
      if (outdir) {
         char path[4096];
         snprintf(path, sizeof(path), "%s/frame%02u.png", outdir, f);
         if (!test_png_write_rgba(path, host, W, H)) {
            fprintf(stderr, "vk_clear: cannot write %s\n", path);
            return 2;
         }
      }
      if (bad || bad_words)
         failed++;
      else
         printf("PASS: frame %u (%u pixels, %u words)\n", f, W * H, FILL_WORDS);
   }

   vkDestroyFence(dev, fence, NULL);
   vkDestroyCommandPool(dev, pool, NULL);
   vkDestroyFramebuffer(dev, fb, NULL);
   vkDestroyRenderPass(dev, rp, NULL);
   vkDestroyImageView(dev, view, NULL);
   vkUnmapMemory(dev, buf_mem);
   vkDestroyBuffer(dev, buf, NULL);
   vkFreeMemory(dev, buf_mem, NULL);
   vkDestroyImage(dev, image, NULL);
   vkFreeMemory(dev, image_mem, NULL);
   vkDestroyDevice(dev, NULL);
   vkDestroyInstance(inst, NULL);
   return failed ? 1 : 0;
}
